"""ci-healer: heals a pull request's failing CI from a ``workflow_run`` event."""

__version__ = "0.1.0"
