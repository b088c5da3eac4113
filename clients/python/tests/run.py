"""Run the client's tests; the last line is "python-client: N passed, M failed".

    run.py [MODULE...]      (default: every test_*.py here)

Tests that need a server skip, saying so, when PGHOST names none; skips are
listed and not counted as passed.
"""
import sys
import time
import unittest

names = sys.argv[1:] or None
loader = unittest.TestLoader()
suite = loader.loadTestsFromNames(names) if names else loader.discover(".", pattern="test_*.py")
started = time.monotonic()
result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
skipped = len(result.skipped)
for test, reason in result.skipped:
    print(f"SKIPPED {test.id()}: {reason}")
passed = result.testsRun - failed - skipped
print(f"({time.monotonic() - started:.1f}s, {skipped} skipped)")
print(f"python-client: {passed} passed, {failed} failed")
sys.exit(1 if failed or result.testsRun == 0 else 0)
