"""The machine the job runs on and the caches it keeps (`healer/diagnosis/rules/platforms.yml`): each entry,
written from a tool's own words, has one case here with the rule that must read it and the decision that
follows, and the traps: the code's own failure that merely mentions the same words."""

from __future__ import annotations

import pytest
from joblogs import PLATFORM, REPO, UPSTREAM, diagnose_log, job_log

from healer.model import Action, Owner


def run_log(command: str, output: str, exit_code: int | None = 1) -> str:
    return job_log(command, output, exit_code=exit_code, image="windows-2022", cleanup=True)


def diagnose(text: str, job: str):  # noqa: ANN201
    return diagnose_log(text, job=job)


LOCKED, LONG, TOOLS, POLICY = (
    "windows.file-locked",
    "windows.path-too-long",
    "windows.build-tools-missing",
    "windows.execution-policy",
)
XCODE, SIM, KEYCHAIN, INTEGRITY = (
    "apple.xcode-unavailable",
    "apple.simulator-failed",
    "apple.keychain",
    "dependency.integrity-mismatch",
)

CASES = [
    # Windows: a file another process holds open
    (
        "windows",
        "npm ci",
        "npm ERR! code EPERM\nnpm ERR! syscall rename\n"
        "npm ERR! The operation was rejected by your operating system.\n"
        "npm ERR! It's possible that the file was already in use (by a text editor or antivirus),\n"
        "npm ERR! or that you lack permissions to access it.",
        LOCKED,
        PLATFORM,
        "npm-eperm-in-use",
    ),
    (
        "windows",
        "pnpm install",
        r" EBUSY  EBUSY: resource busy or locked, rename 'D:\a\w\w\node_modules\.pnpm\_tmp_1' -> 'D:\a\w\x'",
        LOCKED,
        PLATFORM,
        "ebusy-rename",
    ),
    (
        "windows",
        "pnpm install",
        r" EPERM  EPERM: operation not permitted, rename 'D:\a\w\w\node_modules\.pnpm\_tmp_5' -> 'D:\a\w\y'",
        LOCKED,
        PLATFORM,
        "eperm-rename-drive",
    ),
    (
        "windows",
        "Remove-Item -Recurse build",
        r"Remove-Item: D:\a\x\build\out.log: The process cannot access the file 'D:\a\x\build\out.log' "
        "because it is being used by another process.",
        LOCKED,
        PLATFORM,
        "being-used",
    ),
    (
        "windows",
        "msbuild App.sln",
        r'D:\a\x\App.csproj : error MSB3027: Could not copy "obj\App.dll" to "bin\App.dll". Exceeded retry '
        r'count of 10. Failed. The file is locked by: "VBCSCompiler (4321)" [D:\a\x\App.csproj]',
        LOCKED,
        PLATFORM,
        "msb3027",
    ),
    # Windows: long paths
    (
        "windows",
        "git clone https://github.com/acme/app.git",
        "Cloning into 'app'...\nerror: unable to create file src/a/b/c/d/e/f/k.txt: Filename too long\n"
        "fatal: unable to checkout working tree",
        LONG,
        REPO,
        "git-filename-too-long",
    ),
    (
        "windows",
        "msbuild App.sln",
        'error MSB3553: Resource file "obj\\x.resources" has an invalid name. The specified path, file name, '
        "or both are too long. The fully qualified file name must be less than 260 characters, and the "
        "directory name must be less than 248 characters.",
        LONG,
        REPO,
        "dotnet-path-too-long",
    ),
    # Windows: Visual Studio components
    (
        "windows",
        "msbuild App.sln",
        "Microsoft.CppBuild.targets(456,5): error MSB8020: The build tools for v141 (Platform Toolset = "
        "'v141') cannot be found. To build using the v141 build tools, please install v141 build tools.",
        TOOLS,
        REPO,
        "msb8020",
    ),
    (
        "windows",
        "msbuild App.sln",
        "Microsoft.CppBuild.targets(456,5): error MSB8020: The build tools for Visual Studio 2022 (Platform "
        "Toolset = 'v143') cannot be found. To build using the v143 build tools, please install Visual "
        "Studio 2022 build tools.",
        TOOLS,
        REPO,
        "msb8020-visual-studio-name",
    ),
    (
        "windows",
        "msbuild App.sln",
        "Microsoft.Cpp.WindowsSDK.targets(46,5): error MSB8036: The Windows SDK version 10.0.17763.0 was "
        "not found. Install the required version of Windows SDK",
        TOOLS,
        REPO,
        "msb8036",
    ),
    # PowerShell's execution policy
    (
        "windows",
        r".\build.ps1",
        r".\build.ps1 : File D:\a\x\build.ps1 cannot be loaded because running scripts is disabled on this "
        "system. For more information, see about_Execution_Policies at https:/go.microsoft.com/fwlink/"
        "?LinkID=135170.",
        POLICY,
        REPO,
        "scripts-disabled",
    ),
    (
        "windows",
        r".\build.ps1",
        r"File D:\a\x\build.ps1 cannot be loaded. The file D:\a\x\build.ps1 is not digitally signed. You "
        "cannot run this script on the current system.",
        POLICY,
        REPO,
        "not-signed",
    ),
    (
        "windows",
        "choco install ninjaa -y",
        "Installing the following packages:\nninjaa\n"
        "ninjaa not installed. The package was not found with the source(s) listed.\n"
        " Source(s): 'https://community.chocolatey.org/api/v2/'",
        "windows.choco-package-missing",
        REPO,
        "choco-not-found",
    ),
    (
        "windows",
        "choco install nsis -y --no-progress",
        "Installing the following packages:\nnsis\n"
        "[NuGet] Not able to contact source 'https://community.chocolatey.org/api/v2/'. Error was The remote "
        "server returned an error: (503) Server Unavailable. Service Unavailable\n"
        "nsis not installed. The package was not found with the source(s) listed.",
        "windows.choco-source-unavailable",
        PLATFORM,
        "choco-source-503",
    ),
    (
        "windows",
        "choco install ninja nasm -y --no-progress",
        "Installing the following packages:\nninja;nasm\n"
        "Error retrieving packages from source 'https://community.chocolatey.org/api/v2/':\n"
        " The remote server returned an error: (503) Server Unavailable.\n"
        "ninja not installed. The package was not found with the source(s) listed.",
        "windows.choco-source-unavailable",
        PLATFORM,
        "choco-error-retrieving-packages",
    ),
    (
        "windows",
        "choco install ninja -y --no-progress --source https://pkgs.example.com/choco",
        "Installing the following packages:\nninja\n"
        "Error retrieving packages from source 'https://pkgs.example.com/choco':\n"
        "The remote server returned an error: (401) Unauthorized.\n"
        "ninja not installed. The package was not found with the source(s) listed.",
        "windows.choco-package-missing",
        REPO,
        "choco-source-refused-its-login",
    ),
    # macOS: Homebrew
    (
        "macos",
        "brew install openssl@1.1",
        "Error: Cannot install openssl@1.1 because conflicting formulae are installed.\n"
        "  openssl@3: because both install the same binaries",
        "macos.brew-conflict",
        REPO,
        "brew-conflict",
    ),
    (
        "macos",
        "brew install python@3.12",
        "Error: The `brew link` step did not complete successfully\n"
        "The formula built, but is not symlinked into /usr/local\nCould not symlink bin/2to3",
        "macos.brew-conflict",
        REPO,
        "brew-link",
    ),
    (
        "macos",
        "brew install openssl@1.1",
        "Error: openssl@1.1 has been disabled because it is not supported upstream! It was disabled on "
        "2024-10-24.",
        "macos.brew-formula-unavailable",
        UPSTREAM,
        "brew-disabled",
    ),
    # macOS: Xcode, simulators, signing
    (
        "ios",
        "xcodebuild -scheme App build",
        "You have not agreed to the Xcode license agreements. Please run 'sudo xcodebuild -license' from "
        "within a Terminal window to review and agree to the Xcode and Apple SDKs license.",
        "apple.xcode-license",
        REPO,
        "xcode-license",
    ),
    (
        "ios",
        "sudo xcode-select -s /Applications/Xcode_14.0.app",
        "xcode-select: error: invalid developer directory '/Applications/Xcode_14.0.app/Contents/Developer'",
        XCODE,
        REPO,
        "xcode-select-invalid",
    ),
    (
        "ios",
        "maxim-lobanov/setup-xcode@v1",
        "##[error]Could not find Xcode version that satisfied version spec: '15.0'",
        XCODE,
        REPO,
        "setup-xcode",
    ),
    (
        "ios",
        "xcodebuild test -scheme App -destination 'platform=iOS Simulator,name=iPhone 14,OS=16.0'",
        "xcodebuild: error: Unable to find a destination matching the provided destination specifier:\n"
        "\t\t{ platform:iOS Simulator, OS:16.0, name:iPhone 14 }",
        XCODE,
        REPO,
        "no-destination",
    ),
    (
        "ios",
        "xcrun simctl create t 'iPhone 14' iOS16.0",
        "An error was encountered processing the command (domain=com.apple.CoreSimulator.SimError, "
        "code=403):\nInvalid runtime: iOS16.0",
        XCODE,
        REPO,
        "invalid-runtime",
    ),
    (
        "ios",
        "xcodebuild test -scheme App",
        "Testing failed:\n\tUnable to boot the Simulator.\n** TEST FAILED **",
        SIM,
        PLATFORM,
        "boot-failed",
    ),
    (
        "ios",
        "xcodebuild test -scheme App",
        "Testing failed:\n\tApp.app encountered an error (Underlying Error: CoreSimulatorService connection "
        "became invalid.  Simulator services will no longer be available)\n** TEST FAILED **",
        SIM,
        PLATFORM,
        "coresimulator",
    ),
    (
        "ios",
        "xcrun simctl boot 'iPhone 15'",
        "An error was encountered processing the command (domain=com.apple.CoreSimulator.SimError, "
        "code=405):\nUnable to boot device in current state: Creating",
        SIM,
        PLATFORM,
        "boot-state",
    ),
    (
        "release",
        "xcodebuild -exportArchive -archivePath App.xcarchive -exportPath out",
        'error: exportArchive: No signing certificate "iOS Distribution" found\n** EXPORT FAILED **',
        "apple.signing-identity",
        REPO,
        "export-no-certificate",
    ),
    (
        "release",
        "bundle exec fastlane ios beta",
        "[10:41:08]: Verifying that the certificate and profile are still valid on the Dev Portal...\n"
        "[10:41:08]: Your certificate 'FJ29D8K3L2.cer' is not valid, please check end date and renew it if "
        "necessary\n[10:41:08]: fastlane finished with errors",
        "apple.signing-certificate-expired",
        REPO,
        "match-certificate-expired",
    ),
    (
        "release",
        "bundle exec fastlane ios beta",
        "[10:14:08]: Certificate 'RN5YQ7X3K2' (stored in your storage) is not available on the Developer "
        "Portal\n[!] Certificate 'RN5YQ7X3K2' (stored in your storage) is not available on the Developer "
        "Portal",
        "apple.signing-certificate-expired",
        REPO,
        "match-certificate-revoked",
    ),
    (
        "release",
        'codesign --force --sign "$IDENTITY" build/App.app',
        "build/App.app: errSecInternalComponent",
        KEYCHAIN,
        REPO,
        "errsec",
    ),
    (
        "release",
        'security import cert.p12 -k build.keychain -P "$P12_PASSWORD"',
        "security: SecKeychainItemImport: MAC verification failed during PKCS12 import (wrong password?)",
        KEYCHAIN,
        REPO,
        "p12-password",
    ),
    # CocoaPods
    (
        "ios",
        "pod install",
        "[!] CDN: trunk URL couldn't be downloaded: https://cdn.cocoapods.org/Specs/8/4/1/Firebase/10.0.0/"
        "Firebase.podspec.json Response: Timeout was reached",
        "network.cocoapods-cdn",
        PLATFORM,
        "pod-cdn",
    ),
    (
        "ios",
        "pod install --repo-update",
        "[!] CDN: trunk Repo update failed - 1 error(s):",
        "network.cocoapods-cdn",
        PLATFORM,
        "pod-repo-update",
    ),
    # containers
    (
        "build",
        "docker run --rm ghcr.io/acme/tool:latest",
        "exec /usr/local/bin/tool: exec format error",
        "container.exec-format",
        REPO,
        "exec-format",
    ),
    (
        "build",
        "docker run --rm acme/tool:arm64",
        "standard_init_linux.go:228: exec user process caused: exec format error",
        "container.exec-format",
        REPO,
        "exec-user-process",
    ),
    # package managers' caches and integrity
    (
        "build",
        "npm ci",
        "npm ERR! code EINTEGRITY\nnpm ERR! sha512-AAA== integrity checksum failed when using sha512: wanted "
        "sha512-AAA== but got sha512-BBB==. (53183 bytes)",
        INTEGRITY,
        UPSTREAM,
        "npm-eintegrity",
    ),
    (
        "build",
        "yarn install --frozen-lockfile",
        'error https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz: Integrity check failed for "lodash" '
        '(computed integrity doesn\'t match our records, got "sha512-v2k=")',
        INTEGRITY,
        UPSTREAM,
        "yarn-integrity",
    ),
    (
        "build",
        "pnpm install --frozen-lockfile",
        ' ERR_PNPM_TARBALL_INTEGRITY  Got unexpected checksum for "https://registry.npmjs.org/left-pad/-/'
        'left-pad-1.3.0.tgz". Wanted "sha512-XI5=". Got "sha512-aaaa".',
        INTEGRITY,
        UPSTREAM,
        "pnpm-integrity",
    ),
    (
        "build",
        "yarn install --immutable",
        "➤ YN0018: │ typescript@npm:5.4.5: The remote archive doesn't match the expected checksum",
        INTEGRITY,
        UPSTREAM,
        "yarn-berry-checksum",
    ),
    (
        "test",
        "pip install --require-hashes -r requirements.txt",
        "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated the "
        "package versions, please update the hashes. Otherwise, examine the package contents carefully; "
        "someone may have tampered with them.\n    numpy==2.0.0 from https://files.pythonhosted.org/x.whl:\n"
        "        Expected sha256 1111\n             Got        2222",
        INTEGRITY,
        UPSTREAM,
        "pip-hashes",
    ),
    (
        "build",
        "corepack enable && pnpm install",
        'Error: Cannot find matching keyid: {"signatures":[{"keyid":"SHA256:DhQ8"}],"keys":[]}',
        "dependency.corepack-signature",
        UPSTREAM,
        "corepack-keyid",
    ),
    (
        "build",
        "./gradlew build",
        "* What went wrong:\nExecution failed for task ':app:compileKotlin'.\n> Could not read workspace "
        "metadata from /home/runner/.gradle/caches/transforms-4/1a2b/metadata.bin",
        "runner.gradle-cache",
        PLATFORM,
        "gradle-workspace-metadata",
    ),
    (
        "build",
        "./gradlew test",
        "Gradle could not start your build.\n   > Timeout waiting to lock file hash cache "
        "(/home/ci/.gradle/caches/8.7/fileHashes). It is currently in use by another Gradle instance.",
        "runner.gradle-cache",
        PLATFORM,
        "gradle-lock",
    ),
]


@pytest.mark.parametrize(
    ("job", "command", "output", "rule", "want"),
    [pytest.param(*case[:5], id=case[5]) for case in CASES],
)
def test_each_entry_reads_its_tools_words(
    job: str, command: str, output: str, rule: str, want: tuple
) -> None:
    code = None if "@" in command.split()[0] else 1
    diagnosis = diagnose(run_log(command, output, code), job)
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (rule, *want)


@pytest.mark.parametrize(
    ("command", "output", "rule"),
    [
        pytest.param(
            "dotnet test",
            "  Failed Acme.Tests.WriterTests.WritesTwice [12 ms]\n  Error Message:\n"
            "   System.IO.IOException : The process cannot access the file 'C:\\Temp\\x.txt' because it is "
            "being used by another process.\n"
            "Failed!  - Failed:     1, Passed:    41, Skipped:     0, Total:    42, Duration: 3 s - A.dll",
            LOCKED,
            id="dotnet-test-keeps-its-file-open",
        ),
        pytest.param(
            "npx jest",
            "FAIL src/fs.test.ts\n  ● cache › rotates files\n\n"
            "    EBUSY: resource busy or locked, rename 'C:\\Temp\\cache\\a' -> 'C:\\Temp\\cache\\b'\n\n"
            "      at Object.<anonymous> (src/fs.test.ts:12:3)\n\nTests:       1 failed, 20 passed, 21 total",
            LOCKED,
            id="jest-ebusy",
        ),
        pytest.param(
            "go test ./...",
            "--- FAIL: TestRunPlugin (0.01s)\n    plugin_test.go:20: fork/exec /tmp/plugin-123: exec format "
            "error\nFAIL\nFAIL\texample.com/app/plugin\t0.021s",
            "container.exec-format",
            id="go-test-exec-format",
        ),
        pytest.param(
            "swift test",
            "/Users/runner/work/a/a/Tests/BootTests.swift:9: error: -[AppTests.BootTests testMessage] : "
            'XCTAssertEqual failed: ("Unable to boot the Simulator") is not equal to ("ok")\n'
            "Test Case '-[AppTests.BootTests testMessage]' failed (0.001 seconds).\n"
            "Executed 3 tests, with 1 failure (0 unexpected) in 0.004 (0.005) seconds",
            SIM,
            id="xctest-quotes-simulator",
        ),
        pytest.param(
            "npx eslint .",
            "/home/runner/work/app/app/src/index.js\n  1:21  error  Expected linebreaks to be 'LF' but found "
            "'CRLF'  linebreak-style\n\n✖ 1 problem (1 error, 0 warnings)",
            LOCKED,
            id="eslint-crlf",
        ),
        pytest.param(
            "pip install --require-hashes -r requirements.txt",
            "ERROR: Hashes are required in --require-hashes mode, but they are missing from some "
            "requirements. Here is a list of those requirements along with the hashes their downloaded "
            "archives actually had.\n    requests==2.32.3 --hash=sha256:7076",
            INTEGRITY,
            id="pip-hash-missing-from-requirements",
        ),
        pytest.param(
            "pip install --require-hashes -r req.txt",
            "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated "
            "the package versions, please update the hashes.\n    six==1.16.0 from https://x/six.whl:\n"
            "        Expected sha256 " + "0" * 64 + "\n             Got        8abb2f1d",
            INTEGRITY,
            id="pip-placeholder-hash",
        ),
    ],
)
def test_the_codes_own_failures_stay_the_codes(command: str, output: str, rule: str) -> None:
    diagnosis = diagnose(run_log(command, output), "test")
    assert diagnosis.rule != rule
    assert diagnosis.owner is Owner.CODE and diagnosis.action in (Action.AGENT, Action.FIX)
