"""Runs a callback right after the user's script has imported torch.

install() runs at interpreter start-up, before the user's script. Importing torch there
would cost every Python process of the run about a second (also those that never use
torch) and would make environment variables that the script sets before its own
``import torch`` (OMP_NUM_THREADS, MKL_NUM_THREADS, ...) ineffective. So the hooks wait:
a finder first on ``sys.meta_path`` sees the import of ``torch``, lets the usual finders
find it, and wraps that one loader's ``exec_module`` so that `on_loaded(torch)` runs when
torch's ``__init__`` has finished, or `on_failed(err)` when the import fails.
"""
import sys


class TorchImportWatcher:
    """A meta-path finder that only ever answers for ``torch``; it returns the spec the
    other finders give, with the loader's exec_module wrapped."""

    def __init__(self, on_loaded, on_failed):
        self._on_loaded = on_loaded
        self._on_failed = on_failed
        self._searching = False
        self._done = False

    def start(self):
        """Watches for the import (or calls on_loaded now when torch is already in)."""
        module = sys.modules.get("torch")
        if module is not None and hasattr(module, "nn"):
            self._finish(module, None)
        else:
            sys.meta_path.insert(0, self)

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" or self._searching or self._done:
            return None
        self._searching = True
        try:
            spec = None
            for finder in list(sys.meta_path):
                if finder is self:
                    continue
                find = getattr(finder, "find_spec", None)
                if find is None:
                    continue
                spec = find(fullname, path, target)
                if spec is not None:
                    break
        finally:
            self._searching = False
        if spec is None:
            # Not importable: the import raises ModuleNotFoundError; report torch absent.
            self._finish(None, ModuleNotFoundError("No module named 'torch'"))
            return None
        if spec.loader is None or not self._wrap(spec.loader):
            self._finish(None, RuntimeError("cannot watch the import of torch (loader %r)"
                                            % (spec.loader,)))
        return spec

    def _wrap(self, loader):
        """Wraps this loader instance's exec_module; False when that is impossible."""
        original = getattr(loader, "exec_module", None)
        if original is None:
            return False
        watcher = self

        def exec_module(module):
            try:
                del loader.exec_module  # back to the class's method
            except AttributeError:
                pass
            try:
                sys.meta_path.remove(watcher)  # safe here: no finder loop is running
            except ValueError:
                pass
            try:
                original(module)
            except BaseException as err:
                watcher._finish(None, err)
                raise
            watcher._finish(module, None)

        try:
            loader.exec_module = exec_module
        except (AttributeError, TypeError):  # a loader with __slots__
            return False
        return True

    def _finish(self, module, err):
        if self._done:
            return
        self._done = True
        # Leave sys.meta_path alone: the import system may be iterating over it right now
        # (find_spec). Once done, find_spec answers None at the cost of one test.
        if module is not None:
            self._on_loaded(module)
        else:
            self._on_failed(err)
