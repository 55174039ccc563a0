"""``python -m pipelines.cli COMMAND ...``: as ``beamcrawl COMMAND ...``."""

import sys

if __name__ == "__main__":
    try:
        from pipelines.cli import main
    except KeyboardInterrupt:  # Ctrl-C while Python starts: nothing began
        print("beamcrawl: interrupted by SIGINT while starting", file=sys.stderr)
        sys.exit(130)
    sys.exit(main())
