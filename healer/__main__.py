import sys

from healer.cli import main

sys.exit(main(sys.argv))
