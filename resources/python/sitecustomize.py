"""TrainScope's start-up hook for command runs.

The studio's launcher puts this folder first on PYTHONPATH, so Python's `site` module
imports this file at the start-up of every Python process of a command run, before the
user's script runs. It does two things:

1. It chains to the *next* ``sitecustomize`` on ``sys.path`` (Debian ships one in
   /usr/lib/python3.11/; a virtual environment or conda may have their own) and executes
   it under its own name, so the interpreter behaves as it would without us; its errors
   are printed the way `site` prints them. The chained module stays reachable as
   ``sitecustomize.chained`` (None when there is none).
2. Only when ``TRAINSCOPE_HOOKS=1``: it imports ``trainscope_hooks`` and calls
   ``install()``. Any exception of ours is reported as a ``warning`` event and swallowed:
   a user's run never fails because of TrainScope.

The hooks-off path must stay near free: it uses only import machinery already loaded at
start-up (no ``importlib`` import) and is kept short, as without a writable __pycache__
this file is compiled at every start.
"""
import os
import sys

chained = None


def _chain():
    global chained
    boot, ext = sys.modules.get("_frozen_importlib"), sys.modules.get("_frozen_importlib_external")
    if boot is None or ext is None:  # not CPython's usual bootstrap: use the public API
        import importlib.machinery as ext, importlib.util as boot
    me = os.path.abspath(__file__)
    here = os.path.dirname(me)
    paths = [os.path.abspath(p or os.curdir) for p in sys.path]
    rest = [p for p in paths[paths.index(here) + 1 if here in paths else 0:] if p != here]
    while True:  # the first sitecustomize after our folder that is not this file
        spec = ext.PathFinder.find_spec("sitecustomize", rest)
        if spec is None or spec.loader is None:
            return
        if not spec.origin or os.path.realpath(spec.origin) != os.path.realpath(me):
            break
        rest = [p for p in rest if os.path.realpath(p) != os.path.realpath(here)]
    module = boot.module_from_spec(spec)
    ours, sys.modules["sitecustomize"] = sys.modules.get(__name__), module
    try:
        spec.loader.exec_module(module)
        chained = module
    except Exception as err:  # as site.execsitecustomize() reports it
        if sys.flags.verbose:
            sys.excepthook(*sys.exc_info())
        else:
            sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
                             "%s: %s\n" % (err.__class__.__name__, err))
    finally:
        if ours is not None:
            sys.modules["sitecustomize"] = ours


def _early_warning(message):
    try:  # install() failed: a hello plus this warning, written by the package's writer
        from trainscope_hooks.events import report_early
        report_early(message)
    except Exception:
        sys.stderr.write("trainscope_hooks: warning: %s\n" % message)


_problem = None
try:
    _chain()
except Exception as _e:
    _problem = "chaining to the next sitecustomize failed: %s: %s" % (_e.__class__.__name__, _e)
if os.environ.get("TRAINSCOPE_HOOKS") == "1":
    try:
        import trainscope_hooks
        trainscope_hooks.install(warnings=[_problem] if _problem else ())
    except Exception as _e:
        _early_warning("trainscope_hooks could not be installed: %s: %s" % (_e.__class__.__name__, _e))
elif _problem:
    sys.stderr.write("trainscope_hooks: warning: %s\n" % _problem)
