"""python -m nlpbook.examples：打印各章复算的数字（见 nlpbook/examples/__init__.py）。"""
import sys

from . import main

sys.exit(main())
