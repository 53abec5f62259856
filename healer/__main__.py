import sys

from healer.cli import main

if __name__ == "__main__":  # `python -m healer`; importing the module (a walk over every module) runs nothing
    sys.exit(main(sys.argv))
