"""Release, deploy and the services a test job needs: each rule entry written from a tool's own words has one
case here, with the rule that must read it and the decision that follows, and the traps: the code's own
failure that merely mentions the same words."""

from __future__ import annotations

import pytest
from joblogs import CODE, PLATFORM, REPO, UPSTREAM, diagnose_log, job_log

from healer.model import Action, Owner


def run_log(command: str, output: str, exit_code: int | None = 1) -> str:
    return job_log(command, output, exit_code=exit_code, image="ubuntu-24.04", cleanup=True)


def diagnose(text: str, job: str):  # noqa: ANN201
    return diagnose_log(text, job=job)


@pytest.mark.parametrize(
    ("job", "command", "output", "rule", "want"),
    [
        pytest.param(
            "publish",
            "twine upload dist/*",
            "ERROR    HTTPError: 400 Bad Request from https://upload.pypi.org/legacy/\n"
            "         The description failed to render for 'text/x-rst'. See "
            "https://pypi.org/help/#description-content-type for more information.",
            "build.package-description",
            CODE,
            id="pypi-description",
        ),
        pytest.param(
            "publish",
            "pypa/gh-action-pypi-publish@release/v1",
            "Checking dist/acme-1.0.0.tar.gz: FAILED\n"
            "ERROR    `long_description` has syntax errors in markup and would not be rendered on PyPI.\n"
            "         line 20: Warning: Bullet list ends without a blank line; unexpected unindent.",
            "build.package-description",
            CODE,
            id="twine-check-description",
        ),
        pytest.param(
            "deploy",
            "actions/deploy-pages@v4",
            "##[error]Creating Pages deployment failed\n"
            "##[error]HttpError: Deployment request failed for 0123abcd due to in progress deployment. "
            "Please cancel 89ab first or wait for it to complete.",
            "network.pages-deployment-busy",
            PLATFORM,
            id="pages-in-progress",
        ),
        pytest.param(
            "deploy",
            "actions/deploy-pages@v4",
            "Creating Pages deployment with payload:\n"
            '{ "artifact_id": 1234, "pages_build_version": "5e1a" }\n'
            "##[error]Failed to create deployment (status: 500) with build version 5e1a. Request ID "
            "1A2B:3C4D:5E6F70 Responded with: Internal Server Error",
            "network.http-5xx",
            PLATFORM,
            id="pages-api-500",
        ),
        pytest.param(
            "publish",
            "docker/build-push-action@v6",
            "#12 pushing layers 2.1s done\n"
            "#12 ERROR: failed to push ghcr.io/acme/api:1.9.0: unexpected status from PUT request to "
            "https://ghcr.io/v2/acme/api/manifests/1.9.0: 500 Internal Server Error\n"
            "##[error]buildx failed with: ERROR: failed to build: failed to solve: failed to push "
            "ghcr.io/acme/api:1.9.0: unexpected status from PUT request to https://ghcr.io/v2/acme/api/man",
            "network.http-5xx",
            PLATFORM,
            id="registry-push-500",
        ),
        pytest.param(
            "deploy",
            "actions/deploy-pages@v4",
            "Created deployment for 5e1a, ID: 5e1a\nGetting Pages deployment status...\n"
            "Current status: deployment_in_progress\nCurrent status: deployment_failed\n"
            "##[error]Deployment failed, try again later.",
            "network.http-5xx",
            PLATFORM,
            id="pages-deployment-failed-try-again",
        ),
        pytest.param(
            "setup",
            "actions/setup-python@v5",
            "##[error]The specified python version file at: /home/runner/work/app/app/.python-version "
            "doesn't exist.",
            "config.version-file-missing",
            CODE,
            id="setup-python-version-file",
        ),
        pytest.param(
            "setup",
            "actions/setup-node@v4",
            "##[error]The specified node version file at: /home/runner/work/app/app/.nvmrc does not exist",
            "config.version-file-missing",
            CODE,
            id="setup-node-version-file",
        ),
        pytest.param(
            "install",
            "pip install -r requirements.txt",
            "Collecting zonestat>=1.2\n  Downloading zonestat-2.0.0-py3-none-any.whl (41 kB)\n"
            "ERROR: Package 'zonestat' requires a different Python: 3.6.15 not in '>=3.8'",
            "dependency.runtime-too-old",
            UPSTREAM,
            id="pip-requires-python",
        ),
        pytest.param(
            "install",
            "pip install -e .",
            "ERROR: Ignored the following versions that require a different python version: 3.0.0 "
            "Requires-Python >=3.9; 3.0.1 Requires-Python >=3.9\n"
            "ERROR: Could not find a version that satisfies the requirement tomlkit-ext>=3 (from versions: "
            "2.4.0, 2.5.0)\nERROR: No matching distribution found for tomlkit-ext>=3",
            "dependency.runtime-too-old",
            UPSTREAM,
            id="pip-ignored-for-python",
        ),
        pytest.param(
            "lint",
            "golangci/golangci-lint-action@v6",
            "Running [/home/runner/golangci-lint-2.0.2-linux-amd64/golangci-lint run] in "
            "[/home/runner/work/a/a] ...\n"
            '  Error: can\'t load config: unsupported version of the configuration: "" See '
            "https://golangci-lint.run/product/migration-guide for migration instructions\n"
            "##[error]golangci-lint exit with code 3",
            "go.golangci-lint-v1-config",
            UPSTREAM,
            id="golangci-lint-v2-reads-v1-config",
        ),
        pytest.param(
            "lint",
            "golangci/golangci-lint-action@v8",
            "Running [/home/runner/golangci-lint-2.4.0-linux-amd64/golangci-lint config verify] in "
            "[/home/runner/work/a/a] ...\n"
            "The command is terminated due to an error: the configuration contains invalid elements\n"
            'Failed executing command with error: unsupported version of the configuration: "" See '
            "https://golangci-lint.run/docs/product/migration-guide for migration instructions\n"
            "##[error]golangci-lint exit with code 3",
            "go.golangci-lint-v1-config",
            UPSTREAM,
            id="golangci-lint-config-verify-of-v1-config",
        ),
        pytest.param(
            "lint",
            "golangci/golangci-lint-action@v6",
            "Requested golangci-lint 'latest', using 'v2.2.1', calculation took 121ms\n"
            "Running [/home/runner/golangci-lint-2.2.1-linux-amd64/golangci-lint run "
            "--out-format=github-actions] in [/home/runner/work/a/a] ...\n"
            "  Error: unknown flag: --out-format\n"
            "  Failed executing command with error: unknown flag: --out-format\n"
            "##[error]golangci-lint exit with code 3",
            "go.golangci-lint-v1-config",
            UPSTREAM,
            id="golangci-lint-v2-refuses-v1s-out-format",
        ),
        pytest.param(
            "lint",
            "golangci/golangci-lint-action@v8",
            "Requested golangci-lint 'latest', using 'v2.7.2', calculation took 62ms\n"
            "Running [/home/runner/golangci-lint-2.7.2-linux-amd64/golangci-lint config verify] in "
            "[/home/runner/work/a/a] ...\n"
            'jsonschema: "" does not validate with "/additionalProperties": additional properties '
            "'linters-settings' not allowed\n"
            "The command is terminated due to an error: the configuration contains invalid elements\n"
            "##[error]golangci-lint exit with code 3",
            "go.golangci-lint-v1-config",
            UPSTREAM,
            id="golangci-lint-v2-schema-refuses-v1s-linters-settings",
        ),
        pytest.param(
            "lint",
            "golangci/golangci-lint-action@v8",
            "Running [/home/runner/golangci-lint-2.0.2-linux-amd64/golangci-lint config verify] in "
            "[/home/runner/work/a/a] ...\n"
            'jsonschema: "" does not validate with "/required": missing property \'version\'\n'
            "Failed executing command with error: the configuration contains invalid elements\n"
            "##[error]golangci-lint exit with code 3",
            "go.golangci-lint-v1-config",
            UPSTREAM,
            id="golangci-lint-v2-schema-misses-the-version",
        ),
        pytest.param(
            "deploy",
            "actions/deploy-pages@v4",
            "Current status: deployment_queued\nCurrent status: deployment_queued\n"
            "##[error]Timeout reached, aborting!",
            "network.pages-deployment-busy",
            PLATFORM,
            id="pages-timeout",
        ),
        pytest.param(
            "deploy",
            "sam deploy --no-confirm-changeset",
            "Error: Failed to create changeset for the stack: acme, An error occurred (ValidationError) when "
            "calling the CreateChangeSet operation: "
            "Stack:arn:aws:cloudformation:us-east-1:1:stack/acme/x is in "
            "UPDATE_IN_PROGRESS state and can not be updated.",
            "network.cloudformation-stack-busy",
            PLATFORM,
            id="stack-busy",
        ),
        pytest.param(
            "deploy",
            "aws cloudformation deploy --template-file t.yml --stack-name acme",
            "An error occurred (ValidationError) when calling the CreateChangeSet operation: "
            "Stack:arn:aws:cloudformation:us-east-1:1:stack/acme/x is in "
            "UPDATE_ROLLBACK_FAILED state and can "
            "not be updated.",
            "config.cloudformation-stack-state",
            REPO,
            id="stack-rollback-failed",
        ),
        pytest.param(
            "deploy",
            "aws cloudformation deploy --template-file t.yml --stack-name acme",
            "Waiting for changeset to be created..\n\nNo changes to deploy. Stack acme is up to date",
            "config.cloudformation-no-changes",
            REPO,
            id="deploy-empty-changeset",
        ),
        pytest.param(
            "deploy",
            "aws cloudformation update-stack --stack-name acme --template-body file://t.yml",
            "An error occurred (ValidationError) when calling the UpdateStack "
            "operation: No updates are to be "
            "performed.",
            "config.cloudformation-no-changes",
            REPO,
            id="update-stack-no-updates",
        ),
        pytest.param(
            "deploy",
            "aws cloudformation deploy --template-file t.yml --stack-name acme",
            "An error occurred (ValidationError) when calling the CreateChangeSet operation: Template format "
            "error: Unresolved resource dependencies [MyBucket] in the Resources block of the template",
            "config.cloudformation-template",
            CODE,
            id="template-format-error",
        ),
        pytest.param(
            "deploy",
            "aws s3 sync dist/ s3://docs-site --delete",
            "upload: dist/index.html to s3://docs-site/index.html\n"
            "upload failed: dist/img/hero.webp to s3://docs-site/img/hero.webp An error occurred (SlowDown) "
            "when calling the PutObject operation (reached max retries: 4): Please reduce your request rate.",
            "network.aws-throttled",
            PLATFORM,
            id="s3-slowdown",
        ),
        pytest.param(
            "deploy",
            "aws ecs update-service --cluster web --service api --force-new-deployment",
            "An error occurred (ThrottlingException) when calling the UpdateService operation (reached max "
            "retries: 2): Rate exceeded",
            "network.aws-throttled",
            PLATFORM,
            id="ecs-throttling",
        ),
        pytest.param(
            "deploy",
            "aws-actions/configure-aws-credentials@v4",
            "Assuming role with OIDC\nAssuming role with OIDC\n"
            "##[error]Could not assume role with OIDC: Couldn't retrieve verification key from your identity "
            "provider,  please reference AssumeRoleWithWebIdentity documentation for requirements",
            "network.aws-oidc-key-unreachable",
            PLATFORM,
            id="oidc-verification-key-unreachable",
        ),
        pytest.param(
            "publish",
            "twine upload --repository testpypi dist/*",
            "Uploading distributions to https://test.pypi.org/legacy/\n"
            "ERROR    HTTPError: 400 Bad Request from https://test.pypi.org/legacy/\n"
            "         The use of local versions in <Version('0.9.1.dev14+g572d7972')> is not allowed. See "
            "https://packaging.python.org/specifications/core-metadata for more information.",
            "config.package-metadata-refused",
            CODE,
            id="pypi-refuses-a-local-version",
        ),
        pytest.param(
            "publish",
            "twine upload dist/*",
            "ERROR    HTTPError: 400 Bad Request from https://upload.pypi.org/legacy/\n"
            "         Invalid value for classifiers. Error: Classifier 'Framework :: Pydantic :: 3' is not a"
            " valid classifier.",
            "config.package-metadata-refused",
            CODE,
            id="pypi-refuses-an-unknown-classifier",
        ),
        pytest.param(
            "publish",
            "npx @vscode/vsce package",
            "Executing prepublish script 'npm run vscode:prepublish'...\n"
            " ERROR  Make sure to edit the README.md file before you package or publish your extension.",
            "config.package-metadata-refused",
            CODE,
            id="vsce-refuses-the-template-readme",
        ),
        pytest.param(
            "publish",
            "npm publish",
            "npm notice Publishing to https://registry.npmjs.org/ with tag latest and default access\n"
            "npm ERR! code E402\n"
            "npm ERR! 402 Payment Required - PUT https://registry.npmjs.org/@gorse%2fui - You must sign up"
            " for private packages",
            "config.package-metadata-refused",
            CODE,
            id="npm-scoped-package-published-as-private",
        ),
        pytest.param(
            "deploy",
            "npx firebase-tools deploy --only functions,hosting",
            "=== Deploying to 'corkboard-prod'...\n"
            'Running command: npm --prefix "$RESOURCE_DIR" run lint\n\n> lint\n> eslint --ext .js,.ts .\n\n'
            "/home/runner/work/corkboard/corkboard/functions/src/index.ts\n"
            "  42:9  error  'pinCount' is assigned a value but never used"
            "  @typescript-eslint/no-unused-vars\n\n"
            "✖ 1 problem (1 error, 0 warnings)\n\n"
            "Error: functions predeploy error: Command terminated with non-zero exit code 1",
            "js.eslint",
            CODE,
            id="a-deploys-predeploy-lint-finding",
        ),
        pytest.param(
            "deploy",
            "aws s3 sync dist/ s3://docs-site",
            "upload failed: dist/index.html to s3://docs-site/index.html An error occurred (AccessDenied) "
            "when calling the PutObject operation: Access Denied",
            "config.cloud-permission",
            REPO,
            id="s3-access-denied-is-no-throttling",
        ),
        pytest.param(
            "infra",
            "terraform init -input=false",
            "Initializing the backend...\n\nError: Failed to get existing workspaces: Unable to list objects "
            'in S3 bucket "acme-tfstate" with prefix "env:/": operation error S3: ListObjectsV2, https '
            "response error StatusCode: 403, RequestID: 5D265A044C48D917, HostID: 126f4c26, api error "
            "AccessDenied: Access Denied",
            "config.cloud-permission",
            REPO,
            id="terraform-s3-backend-access-denied",
        ),
        pytest.param(
            "test",
            "docker pull postgres:15",
            "postgres service is starting, waiting 32 seconds before checking again.\n"
            "##[error]Failed to initialize, postgres service is unhealthy.",
            "config.service-unhealthy",
            REPO,
            id="service-unhealthy",
        ),
        pytest.param(
            "test",
            "./gradlew test",
            "CoreIT > initializationError FAILED\n"
            "    java.lang.IllegalStateException: Could not find a valid Docker "
            "environment. Please see logs and "
            "check configuration\n1 test completed, 1 failed\n> Task :test FAILED",
            "runner.docker-unavailable",
            PLATFORM,
            id="testcontainers-no-docker",
        ),
        pytest.param(
            "test",
            "go test ./...",
            "--- FAIL: TestLedgerRepo (0.01s)\n    ledger_repo_test.go:24:\n"
            "\tError Trace:\tledger_repo_test.go:24\n\tError:\tReceived unexpected error:\n"
            "\t\tcreate container: failed to create Docker provider: rootless Docker not found\n"
            "FAIL\nFAIL\tgithub.com/acme/ledger/internal/store\t6.122s",
            "runner.docker-unavailable",
            PLATFORM,
            id="testcontainers-go-no-docker",
        ),
        pytest.param(
            "test",
            "mvn -B verify -Pintegration",
            "[main] ERROR tc.postgres:16-alpine - Failed to pull image: postgres:16-alpine. "
            "Please check output of `docker pull postgres:16-alpine`\n"
            "com.github.dockerjava.api.exception.InternalServerErrorException: Status 500: "
            '{"message":"received unexpected HTTP status: 503 Service Unavailable"}\n'
            "[ERROR] com.example.StoreIT -- Time elapsed: 121.4 s <<< ERROR!\n"
            "[ERROR] Tests run: 14, Failures: 0, Errors: 14, Skipped: 0",
            "network.container-image-pull",
            PLATFORM,
            id="testcontainers-registry-503",
        ),
        pytest.param(
            "test",
            "./gradlew integrationTest",
            "RepositoryIT > initializationError FAILED\n"
            "    org.testcontainers.containers.ContainerFetchException: Can't get Docker image: "
            "RemoteDockerImage(imageName=pg)\n"
            "        Caused by: com.github.dockerjava.api.exception.InternalServerErrorException: "
            'Status 500: {"message":"Get https://registry-1.docker.io/v2/: net/http: request canceled while '
            'waiting for connection (Client.Timeout exceeded while awaiting headers)"}\n\n'
            "1 test completed, 1 failed",
            "network.container-image-pull",
            PLATFORM,
            id="testcontainers-registry-timeout",
        ),
        # Go (1.14 and later) quotes the URL, and the daemon's JSON escapes those quotes
        pytest.param(
            "test",
            "mvn -B verify",
            "Caused by: com.github.dockerjava.api.exception.InternalServerErrorException: Status 500: "
            '{"message":"Get \\"https://registry-1.docker.io/v2/library/postgres/manifests/16-alpine\\": '
            'received unexpected HTTP status: 503 Service Unavailable"}\n'
            "[ERROR] Tests run: 9, Failures: 0, Errors: 9, Skipped: 0",
            "network.container-image-pull",
            PLATFORM,
            id="testcontainers-registry-quoted-503",
        ),
        pytest.param(
            "test",
            "mvn -B verify",
            "[ERROR] Failed to pull image: ghcr.io/acme/postgres:16. Please check output of `docker logs`\n"
            "com.github.dockerjava.api.exception.InternalServerErrorException: Status 500: "
            '{"message":"Head \\"https://ghcr.io/v2/acme/postgres/manifests/16\\": received unexpected '
            'HTTP status: 502 Bad Gateway"}\n'
            "[ERROR] Tests run: 9, Failures: 0, Errors: 9, Skipped: 0",
            "network.container-image-pull",
            PLATFORM,
            id="testcontainers-registry-manifest-head-502",
        ),
        pytest.param(
            "test",
            "./gradlew test",
            "    org.testcontainers.containers.ContainerFetchException: Can't get Docker image: "
            "RemoteDockerImage(imageName=postgres:16-alpine)\n"
            "        Caused by: com.github.dockerjava.api.exception.InternalServerErrorException: "
            'Status 500: {"message":"Get \\"https://registry-1.docker.io/v2/\\": dial tcp: lookup '
            'registry-1.docker.io on 127.0.0.53:53: read udp 127.0.0.1:48211->127.0.0.53:53: i/o timeout"}\n'
            "1 test completed, 1 failed",
            "network.container-image-pull",
            PLATFORM,
            id="testcontainers-registry-dns-timeout",
        ),
        # docker-py, under Testcontainers for Python: its APIError quotes the daemon's explanation
        pytest.param(
            "test",
            "pytest tests/integration",
            "_____________________ ERROR at setup of test_daily_rollup ______________________\n"
            "E   docker.errors.APIError: 500 Server Error for http+docker://localhost/v1.47/images/create"
            "?tag=16&fromImage=ghcr.io%2Facme%2Fpostgres: Internal Server Error "
            '("Head "https://ghcr.io/v2/acme/postgres/manifests/16": received unexpected HTTP status: '
            '502 Bad Gateway")\n'
            "ERROR tests/integration/test_rollups.py::test_daily_rollup - docker.errors.APIError: 500\n"
            "========================= 1 error in 94.12s (0:01:34) =========================",
            "network.container-image-pull",
            PLATFORM,
            id="testcontainers-python-registry-502",
        ),
        pytest.param(
            "e2e",
            "npx playwright install chromium",
            "Error: Request to "
            "https://playwright.azureedge.net/builds/chromium/1091/chromium-linux.zip timed out "
            "after 30000ms\nFailed to install browsers\n"
            "Error: Failed to download Chromium 120.0 (playwright build v1091), caused by\n"
            "Error: Download failure, code=1",
            "network.browser-download",
            PLATFORM,
            id="playwright-download",
        ),
        pytest.param(
            "deploy",
            "kubectl apply -f k8s/",
            'error: error validating "k8s/service.yaml": error validating data: ValidationError(Service.spec.'
            'ports[0]): unknown field "targetport" in '
            "io.k8s.api.core.v1.ServicePort; if you choose to ignore "
            "these errors, turn validation off with --validate=false",
            "kubernetes.manifest-invalid",
            CODE,
            id="kubectl-validation",
        ),
        pytest.param(
            "deploy",
            "kubectl apply -f k8s/",
            'Error from server (BadRequest): error when creating "k8s/cm.yaml": ConfigMap in version "v1" '
            'cannot be handled as a ConfigMap: strict decoding error: unknown field "dataa"',
            "kubernetes.manifest-invalid",
            CODE,
            id="kubectl-strict-decoding",
        ),
        pytest.param(
            "deploy",
            "kubectl apply -f k8s/",
            'Error from server (BadRequest): error when creating "k8s/deployment.yaml": Deployment in '
            'version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct '
            "field Container.spec.template.spec.containers.ports.containerPort of type int32",
            "kubernetes.manifest-invalid",
            CODE,
            id="kubectl-bad-request",
        ),
        pytest.param(
            "deploy",
            "kubectl apply -k overlays/review",
            'Error from server (BadRequest): Deployment in version "v1" cannot be handled as a Deployment: '
            "json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers."
            "ports.containerPort of type int32",
            "kubernetes.manifest-invalid",
            CODE,
            id="kubectl-kustomize-bad-request-without-a-file",
        ),
        pytest.param(
            "deploy",
            "flyctl deploy --remote-only",
            "#7 [build 4/6] RUN npm ci\n"
            "#7 0.982 npm error `npm ci` can only install packages when your package.json and "
            "package-lock.json or npm-shrinkwrap.json are in sync. Please update your lock file with "
            "`npm install` before continuing.\n#7 0.982 npm error Missing: zod@4.1.5 from lock file\n"
            "Error: failed to fetch an image or build from source: error building: exit code: 1",
            "js.lockfile",
            CODE,
            id="deploy-image-build-lock-out-of-sync",
        ),
        pytest.param(
            "deploy",
            "helm lint charts/lapwing --strict && helm upgrade --install lapwing charts/lapwing",
            "==> Linting charts/lapwing\n[ERROR] templates/deployment.yaml: unable to parse YAML: error "
            "converting YAML to JSON: yaml: line 34: did not find expected key\n\n"
            "Error: 1 chart(s) linted, 1 chart(s) failed",
            "kubernetes.helm-lint",
            CODE,
            id="deploy-helm-lint-of-the-chart",
        ),
        pytest.param(
            "deploy",
            "kubectl apply --dry-run=server -f deploy/",
            "error: error parsing deploy/edge-deployment.yaml: error converting YAML to JSON: yaml: line 27: "
            "did not find expected key",
            "kubernetes.manifest-invalid",
            CODE,
            id="kubectl-not-yaml",
        ),
        pytest.param(
            "deploy",
            "kubectl apply -f k8s/",
            'Error from server (Invalid): error when creating "k8s/svc.yaml": Service "web" is invalid: '
            "spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
            "kubernetes.manifest-invalid",
            CODE,
            id="kubectl-invalid",
        ),
        pytest.param(
            "deploy",
            "kubectl apply -k deploy/overlays/staging",
            'namespace/app unchanged\nThe Deployment "api" is invalid: '
            "spec.template.spec.containers[0].resources.requests: Invalid value: "
            '"2Gi": must be less than or equal to memory limit of 1Gi',
            "kubernetes.manifest-invalid",
            CODE,
            id="kustomize-invalid",
        ),
        pytest.param(
            "deploy",
            "helm upgrade --install web ./chart -f chart/values-staging.yaml --atomic",
            'Error: UPGRADE FAILED: failed to create resource: Deployment.apps "web" is invalid: '
            'spec.template.spec.containers[0].resources.requests: Invalid value: "2Gi": must be less than '
            "or equal to memory limit of 512Mi",
            "kubernetes.manifest-invalid",
            CODE,
            id="helm-upgrade-invalid",
        ),
        pytest.param(
            "deploy",
            "helm upgrade --install web ./web -f web/values-staging.yaml",
            'Error: parse error at (web/templates/deployment.yaml:38): function "toYml" not defined\n'
            "helm.go:86: [debug] parse error at (web/templates/deployment.yaml:38): "
            'function "toYml" not defined',
            "kubernetes.helm-template",
            CODE,
            id="helm-template-parse-error",
        ),
        pytest.param(
            "deploy",
            "helm upgrade --install web-pr-418 ./chart --wait",
            "Error: INSTALLATION FAILED: 1 error occurred:\n"
            '\t* Deployment.apps "web-pr-418" is invalid: '
            "spec.template.spec.containers[0].resources.requests: "
            'Invalid value: "750m": must be less than or equal to cpu limit of 500m',
            "kubernetes.manifest-invalid",
            CODE,
            id="helm-install-one-of-its-errors-invalid",
        ),
        pytest.param(
            "release",
            "goreleaser release --clean",
            "  • getting and validating git state\n"
            "    • git state      commit=e29807f branch=HEAD current_tag=v0.14.0 dirty=true\n"
            "  ⨯ release failed after 0s                        error=git is in a dirty state\n"
            "Please check in your pipeline what can be changing the following files:\n M go.sum\n\n"
            "Learn more at https://goreleaser.com/errors/dirty",
            "go.goreleaser-dirty",
            CODE,
            id="goreleaser-dirty",
        ),
        pytest.param(
            "release",
            "goreleaser release --snapshot --clean",
            "  • starting release...\n"
            "  ⨯ release failed after 0s                  error=yaml: unmarshal errors:\n"
            "  line 17: field archive not found in type config.Project",
            "go.goreleaser-config",
            CODE,
            id="goreleaser-config",
        ),
        pytest.param(
            "deploy-preview",
            "npx netlify deploy --build --alias preview",
            "Netlify Build\n\nbuild.command from netlify.toml\n\n$ npm run build\n\n> site@1.0.0 build\n"
            "> eleventy\n\n[11ty] Problem writing Eleventy templates:\n[11ty] posts/launch.md is missing "
            'its date\n\n"build.command" failed\n\n  Error message\n'
            "  Command failed with exit code 1: npm run build\n\n  Error location\n"
            "  In build.command from netlify.toml:\n  npm run build",
            "deploy.hosted-build-failed",
            CODE,
            id="netlify-build-command",
        ),
        pytest.param(
            "deploy-preview",
            "npx netlify deploy --build --alias preview",
            "Netlify Build\n\nbuild.command from netlify.toml\n\n$ npm run build\n\n> site@1.0.0 build\n"
            "> astro build\n\n[InvalidContentEntryDataError] posts → launch data does not match collection "
            'schema.\n  pubDate: Required\n\n"build.command" failed\n\n  Error message\n'
            "  Command failed with exit code 1: npm run build\n\n  Error location\n"
            "  In build.command from netlify.toml:\n  npm run build",
            "js.astro-build",
            CODE,
            id="netlify-build-command-astros-own-error",
        ),
        pytest.param(
            "preview",
            "npx vercel deploy --prebuilt=false --token=***",
            'Vercel CLI 48.2.9\nRetrieving project…\nBuilding…\nRunning "npm run build"\n> astro build\n'
            "[vite:load-fallback] Could not load src/components/Hero.astro (imported by "
            "src/pages/index.astro): ENOENT: no such file or directory\n"
            'Error: Command "npm run build" exited with 1',
            "deploy.hosted-build-failed",
            CODE,
            id="vercel-build-command",
        ),
        pytest.param(
            "preview",
            "npx vercel deploy --prebuilt=false --token=***",
            'Running "npm run build"\nnpm ERR! code E503\nnpm ERR! 503 Service Unavailable - GET '
            "https://registry.npmjs.org/astro\n"
            'Error: Command "npm run build" exited with 1',
            "js.npm-network",
            PLATFORM,
            id="vercel-build-on-registry-outage",
        ),
        pytest.param(
            "deploy-staging",
            "helm upgrade --install gw ./chart -f values-staging.yaml --atomic",
            'Error: UPGRADE FAILED: error validating "": error validating data: '
            "[ValidationError(Deployment.spec.template.spec.containers[0].resources.limits.memory): "
            'invalid type for io.k8s.apimachinery.pkg.api.resource.Quantity: got "map", expected "string"]',
            "kubernetes.manifest-invalid",
            CODE,
            id="helm-rendered-manifest-invalid",
        ),
        pytest.param(
            "deploy",
            "kubectl apply -f k8s/",
            "Unable to connect to the server: net/http: TLS handshake timeout",
            "kubernetes.api-unreachable",
            PLATFORM,
            id="kubectl-unable-to-connect",
        ),
        pytest.param(
            "deploy",
            "kubectl apply -f k8s/",
            'from server for: "k8s/deploy.yaml": Get "https://10.0.0.1/apis/apps/v1/namespaces/prod/'
            'deployments/web": context deadline exceeded',
            "kubernetes.api-unreachable",
            PLATFORM,
            id="kubectl-deadline",
        ),
        pytest.param(
            "deploy",
            "terraform apply -auto-approve",
            "╷\n│ Error: Error acquiring the state lock\n│ \n│ Error message: "
            "ConditionalCheckFailedException: The "
            "conditional request failed\n│ Lock Info:\n│   ID:        1234\n╵",
            "terraform.state-locked",
            PLATFORM,
            id="terraform-state-lock",
        ),
        pytest.param(
            "deploy",
            "terraform apply -auto-approve",
            "╷\n│ Error: configuring Terraform AWS Provider: no valid credential sources for Terraform AWS "
            "Provider found.\n╵",
            "config.credentials-refused",
            REPO,
            id="terraform-aws-credentials",
        ),
        pytest.param(
            "deploy",
            "terraform apply -auto-approve",
            "╷\n│ Error: Attempted to load application default credentials since neither `credentials` nor "
            "`access_token` was set in the provider block.  No credentials loaded.\n╵",
            "config.credentials-refused",
            REPO,
            id="terraform-google-credentials",
        ),
        pytest.param(
            "deploy",
            "npx wrangler deploy",
            "✘ [ERROR] In a non-interactive environment, it's necessary to set a CLOUDFLARE_API_TOKEN "
            "environment variable for wrangler to work.",
            "config.missing-input",
            REPO,
            id="wrangler-token",
        ),
        pytest.param(
            "release",
            "mvn -B deploy",
            "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-deploy-plugin:3.1.1:deploy "
            "(default-deploy) on project core: Failed to deploy artifacts: Could not transfer artifact "
            "com.acme:core:jar:1.0.0 from/to github "
            "(https://maven.pkg.github.com/acme/core): status code: 409, "
            "reason phrase: Conflict (409) -> [Help 1]",
            "config.release-exists",
            REPO,
            id="maven-409",
        ),
        pytest.param(
            "publish",
            "pypa/gh-action-pypi-publish@release/v1",
            "Checking dist/acme-1.4.0.tar.gz: PASSED\n"
            "##[error]Trusted publishing exchange failure: \n"
            "Token request failed: the server refused the request for the following reasons:\n\n"
            "* `invalid-publisher`: valid token, but no corresponding publisher (Publisher with matching "
            "claims was not found)\n\n"
            "This generally indicates a trusted publisher configuration error, but could\n"
            "also indicate an internal error on GitHub or PyPI's part.",
            "config.pypi-trusted-publisher",
            REPO,
            id="pypi-no-trusted-publisher",
        ),
        pytest.param(
            "sign",
            "cosign sign --yes ghcr.io/acme/x@${DIGEST}",
            "Non-interactive mode detected, using device flow.\n"
            "Error: signing [ghcr.io/acme/x@sha256:abc]: getting signer: getting key from Fulcio: retrieving "
            "cert: error obtaining token: expired_token",
            "config.token-permissions",
            REPO,
            id="cosign-no-oidc",
        ),
    ],
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
            "go test ./...",
            "--- FAIL: TestFetch (5.00s)\n"
            '    client_test.go:22: Get "http://127.0.0.1:4000/x": context deadline exceeded\n'
            "FAIL\nFAIL\tgithub.com/acme/x/client\t5.012s",
            "kubernetes.api-unreachable",
            id="go-test-deadline",
        ),
        pytest.param(
            "pytest",
            "E       AssertionError: assert 'unknown' == 'busy'\n"
            "FAILED tests/test_status.py::test_parse - AssertionError: assert "
            "parse('is in UPDATE_IN_PROGRESS "
            "state and can not be updated') == 'busy'\n==== 1 failed, 9 passed in 0.4s ====",
            "network.cloudformation-stack-busy",
            id="pytest-quotes-stack-state",
        ),
        pytest.param(
            "terraform validate",
            '╷\n│ Error: Unsupported argument\n│ \n│   on main.tf line 3, in provider "aws":\n'
            '│    3:   regon = "us-east-1"\n╵',
            "terraform.state-locked",
            id="terraform-validate",
        ),
        pytest.param(
            "pytest",
            "E   AssertionError: assert '503 Server Error: Service Unavailable for url: http://x' == 'a'\n"
            "FAILED tests/test_c.py::test_msg - AssertionError: assert '503 Server Error: Service "
            "Unavailable for url: http://x' == 'a'\n==== 1 failed, 2 passed in 0.05s ====",
            "network.http-5xx",
            id="pytest-asserts-on-a-5xx-message",
        ),
        pytest.param(
            "pip install -r requirements.txt",
            "ERROR: Cannot install acme==1.0 and bolt==2.0 because these package versions have conflicting "
            "dependencies.\nERROR: ResolutionImpossible: for help visit "
            "https://pip.pypa.io/en/latest/topics/dependency-resolution/",
            "dependency.runtime-too-old",
            id="pip-conflict-is-not-a-python-version",
        ),
        pytest.param(
            "pytest",
            "E   AssertionError: assert 'The specified node version file at: x does not exist' == ''\n"
            "FAILED tests/test_setup.py::test_message - AssertionError\n==== 1 failed in 0.1s ====",
            "config.version-file-missing",
            id="pytest-quotes-a-setup-message",
        ),
        pytest.param(
            "npx jest",
            " FAIL  test/client.test.ts\n  ● client › throws AuthError on 401\n\n"
            "    expect(received).rejects.toThrow()\n\n    Received promise resolved instead of rejected\n"
            '    Resolved to value: {"message": "Bad credentials", "status": 401}\n\n'
            "Tests:       1 failed, 40 passed, 41 total",
            "config.token-permissions",
            id="jest-asserts-on-a-stubbed-bad-credentials",
        ),
    ],
)
def test_the_codes_own_failures_stay_the_codes(command: str, output: str, rule: str) -> None:
    diagnosis = diagnose(run_log(command, output), "test")
    assert diagnosis.rule != rule
    assert diagnosis.owner is Owner.CODE and diagnosis.action in (Action.AGENT, Action.FIX)


def test_a_pages_deployment_the_repository_has_not_enabled_is_not_the_network() -> None:
    output = (
        "##[error]Failed to create deployment (status: 404) with build version 5e1a. Request ID "
        "1A2B:3C4D:5E6F70 Responded with: Not Found\n"
        "Ensure GitHub Pages has been enabled: https://github.com/acme/site/settings/pages"
    )
    diagnosis = diagnose(run_log("actions/deploy-pages@v4", output, None), "deploy")
    assert diagnosis.rule != "network.http-5xx"
    assert (diagnosis.owner, diagnosis.action) == REPO
