"""What a build job's runner gives the build (`healer/diagnosis/rules/buildenv.yml`, and javac's words in
`rules/jvm.yml`): each entry, written from a tool's own words, has one case here with the rule that must read
it and the decision that follows, and the traps: the code's own build error that merely mentions a header, a
module, a standard or the memory."""

from __future__ import annotations

import pytest
from joblogs import PLATFORM, REPO, diagnose_log, job_log

from healer.model import Action, Owner


def run_log(command: str, output: str) -> str:
    return job_log(command, output)


def diagnose(command: str, output: str, job: str = "build"):  # noqa: ANN201
    return diagnose_log(run_log(command, output), job=job)


CASES = [
    # no compiler, no native toolchain
    pytest.param(
        "./configure",
        "checking for gcc... no\nchecking for cc... no\nconfigure: error: in `/w/p':\n"
        "configure: error: no acceptable C compiler found in $PATH\nSee `config.log' for more details",
        "build.no-compiler",
        REPO,
        id="autoconf-no-compiler",
    ),
    pytest.param(
        "meson setup build",
        "meson.build:1:0: ERROR: Unknown compiler(s): [['cc'], ['gcc'], ['clang']]\n"
        "Running `cc --version` gave \"[Errno 2] No such file or directory: 'cc'\"",
        "build.no-compiler",
        REPO,
        id="meson-no-compiler",
    ),
    pytest.param(
        "npm ci",
        'npm error gyp ERR! find Python\nnpm error gyp ERR! find Python - "python3" is not in PATH or '
        "produced an error\nnpm error gyp ERR! configure error\n"
        "npm error gyp ERR! stack Error: Could not find any Python installation to use",
        "build.native-toolchain-missing",
        REPO,
        id="node-gyp-find-python",
    ),
    pytest.param(
        "npm install",
        "gyp ERR! find VS could not find a version of Visual Studio 2017 or newer to use\n"
        "gyp ERR! stack Error: Could not find any Visual Studio installation to use\ngyp ERR! not ok",
        "build.native-toolchain-missing",
        REPO,
        id="node-gyp-find-vs",
    ),
    pytest.param(
        "pip install -r requirements.txt",
        "  error: subprocess-exited-with-error\n  ╰─> [3 lines of output]\n      running build_ext\n"
        '      error: Microsoft Visual C++ 14.0 or greater is required. Get it with "Microsoft C++ Build '
        'Tools": https://visualstudio.microsoft.com/visual-cpp-build-tools/\n      [end of output]\n'
        "  ERROR: Failed building wheel for pyahocorasick",
        "build.native-toolchain-missing",
        REPO,
        id="setuptools-msvc-required",
    ),
    # a toolchain older than the code asks for
    pytest.param(
        "make",
        "g++ -std=c++17 -c main.cpp\ng++: error: unrecognized command line option '-std=c++17'\n"
        "make: *** [Makefile:5: main.o] Error 1",
        "build.language-standard-unsupported",
        REPO,
        id="gcc-std-unknown",
    ),
    pytest.param(
        "make",
        "clang++ -std=c++20 -c x.cpp\nerror: invalid value 'c++20' in '-std=c++20'\n"
        "note: use 'c++98' or 'c++03' for 'ISO C++ 1998 with amendments' standard",
        "build.language-standard-unsupported",
        REPO,
        id="clang-std-invalid",
    ),
    pytest.param(
        "cmake -B build",
        "CMake Error in CMakeLists.txt:\n"
        '  Target "app" requires the language dialect "CXX20" (with compiler\n'
        "  extensions), but CMake does not know the compile flags to use to enable it.",
        "build.language-standard-unsupported",
        REPO,
        id="cmake-dialect",
    ),
    pytest.param(
        "cmake -B build",
        "CMake Error at CMakeLists.txt:12 (target_compile_features):\n  target_compile_features The compiler "
        'feature "cxx_std_20" is not known to CXX compiler',
        "build.language-standard-unsupported",
        REPO,
        id="cmake-compile-feature",
    ),
    pytest.param(
        "cargo build",
        "error: package `clap_lex v0.7.1` cannot be built because it requires rustc 1.74 or newer, while the "
        "currently active rustc version is 1.70.0\nEither upgrade to rustc 1.74 or newer, or use",
        "build.rust-toolchain-too-old",
        REPO,
        id="cargo-rust-version",
    ),
    pytest.param(
        "cargo build",
        "error: failed to parse manifest at `/w/p/Cargo.toml`\n\nCaused by:\n  feature `edition2024` is "
        "required\n\n  The package requires the Cargo feature called `edition2024`, but that feature is not "
        "stabilized in this version of Cargo (1.80.1).",
        "build.rust-toolchain-too-old",
        REPO,
        id="cargo-edition",
    ),
    pytest.param(
        "go build ./...",
        "go: go.mod requires go >= 1.22.0 (running go 1.21.6; GOTOOLCHAIN=local)",
        "build.go-toolchain-too-old",
        REPO,
        id="go-mod-requires",
    ),
    pytest.param(
        "go build ./...",
        "# example.com/app\n./main.go:6:6: undefined: utf8.AppendRune\nnote: module requires Go 1.18",
        "build.go-toolchain-too-old",
        REPO,
        id="go-note-module-requires",
    ),
    pytest.param(
        "go install golang.org/x/tools/cmd/goimports@latest",
        "go: downloading golang.org/x/tools v0.26.0\ngo: golang.org/x/tools/cmd/goimports@latest (in "
        "golang.org/x/tools@v0.26.0):\n\tgo.mod:3: invalid go version '1.22.0': must match format 1.23",
        "build.go-toolchain-too-old",
        REPO,
        id="go-before-1.21-reads-a-newer-go-line",
    ),
    pytest.param(
        "javac --release 21 -d out Main.java",
        "error: invalid source release: 21\nUsage: javac <options> <source files>",
        "jvm.runtime-version",
        REPO,
        id="javac-invalid-source-release",
    ),
    # the compiler that ran out of memory
    pytest.param(
        "make -j2",
        "cc1plus: out of memory allocating 65536 bytes after a total of 3915345920 bytes\n"
        "make: *** [Makefile:9: t.o] Error 1",
        "build.compiler-out-of-memory",
        PLATFORM,
        id="gcc-xmalloc",
    ),
    pytest.param(
        "cmake --build build --config Release",
        "D:\\a\\p\\src\\huge.cpp(1200,1): fatal error C1060: compiler is out of heap space "
        "[D:\\a\\p\\app.vcxproj]",
        "build.compiler-out-of-memory",
        PLATFORM,
        id="msvc-c1060",
    ),
    pytest.param(
        "cmake --build build --config Release",
        "D:\\a\\p\\src\\huge.cpp : fatal error C1002: compiler is out of heap space in pass 2",
        "build.compiler-out-of-memory",
        PLATFORM,
        id="msvc-c1002",
    ),
    pytest.param(
        "ninja -C build",
        "FAILED: src/gen.cpp.o\nLLVM ERROR: out of memory\nAllocation failed\n"
        "ninja: build stopped: subcommand failed.",
        "build.compiler-out-of-memory",
        PLATFORM,
        id="llvm-oom",
    ),
    pytest.param(
        "cargo build --release",
        'error: linking with `cc` failed: signal: 9 (SIGKILL)\n  |\n  = note: LC_ALL="C" "cc" "-m64"\n'
        'error: could not compile `app` (bin "app") due to 1 previous error',
        "build.compiler-out-of-memory",
        PLATFORM,
        id="rust-linker-sigkill",
    ),
    pytest.param(
        "cabal build",
        "Error: cabal: Failed to build mypkg-0.1.0.0. The build process was killed (i.e. SIGKILL). The "
        "typical reason for this is that there is not enough memory available",
        "build.compiler-out-of-memory",
        PLATFORM,
        id="cabal-sigkill",
    ),
    pytest.param(
        "stack build",
        "--  While building package mypkg-0.1.0 using:\n"
        "    Process exited with code: ExitFailure (-9) (THIS MAY INDICATE OUT OF MEMORY)",
        "build.compiler-out-of-memory",
        PLATFORM,
        id="stack-exit-9",
    ),
    pytest.param(
        "mvn -B package",
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile "
        "(default-compile) on project app: Fatal error compiling: java.lang.OutOfMemoryError: Java heap "
        "space -> [Help 1]",
        "build.compiler-out-of-memory",
        PLATFORM,
        id="maven-compiler-oom",
    ),
]


@pytest.mark.parametrize(("command", "output", "rule", "want"), CASES)
def test_each_entry_reads_its_tools_words(command: str, output: str, rule: str, want: tuple) -> None:
    diagnosis = diagnose(command, output)
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (rule, *want)


@pytest.mark.parametrize(
    ("command", "output"),
    [
        pytest.param(
            "make",
            "gcc -c a.c\ngcc: error: unrecognized command-line option '-std=c++71'; did you mean "
            "'-std=c++11'?\nmake: *** [Makefile:3: a.o] Error 1",
            id="misspelt-std",
        ),
        pytest.param(
            "make",
            "gcc: error: unrecognized command-line option '-Wno-unused-but-set-varible'; did you mean "
            "'-Wno-unused-but-set-variable'?",
            id="misspelt-warning-flag",
        ),
        pytest.param(
            "make",
            "src/main.c:3:10: fatal error: utils/helpr.h: No such file or directory\n"
            '    3 | #include "utils/helpr.h"\ncompilation terminated.',
            id="own-header-typo",
        ),
        pytest.param(
            "make",
            "main.c:(.text+0x1e): undefined reference to `util_parse_args'\n"
            "collect2: error: ld returned 1 exit status",
            id="own-undefined-reference",
        ),
        pytest.param(
            "go build ./...",
            "main.go:6:2: no required module provides package github.com/spf13/cobra; to add it:\n"
            "\tgo get github.com/spf13/cobra",
            id="go-missing-requirement",
        ),
        pytest.param(
            "cargo build",
            "error[E0432]: unresolved import `crate::utl`\n --> src/main.rs:3:12\n\n"
            'error: could not compile `app` (bin "app") due to 1 previous error',
            id="rust-own-module",
        ),
        pytest.param(
            "mvn -B compile",
            "[ERROR] /w/src/main/java/com/x/App.java:[12,9] cannot find symbol\n  symbol:   class HttpClent\n"
            "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile "
            "(default-compile) on project app: Compilation failure",
            id="javac-own-symbol",
        ),
        pytest.param(
            "pytest",
            "    def test_oom_message():\n>       assert fmt(e) == 'LLVM ERROR: out of memory!'\nE       "
            "AssertionError\n=== 1 failed in 0.1s ===",
            id="test-quotes-llvm-oom",
        ),
    ],
)
def test_the_codes_own_build_error_stays_the_codes(command: str, output: str) -> None:
    diagnosis = diagnose(command, output)
    assert not diagnosis.rule.startswith("build.")
    assert diagnosis.owner is Owner.CODE and diagnosis.action in (Action.AGENT, Action.FIX)
