"""Stand-ins for the diffusers package imports of one diffusers modeling file, so the file's modules can be built and
run with a bare torch (Debian's python3-torch 1.13, no diffusers, no huggingface_hub): ConfigMixin / register_to_config
(which keeps the constructor's arguments as `self.config`), ModelMixin (nn.Module), the output classes, logging and
get_activation. Used by wan_vae_cpu_live.py and cogvideox030_vae_cpu_live.py."""
import types

STUB = '''import logging as _logging
def register_to_config(f):
    import functools, inspect, types
    @functools.wraps(f)
    def w(self, *a, **k):
        b = inspect.signature(f).bind(self, *a, **k); b.apply_defaults()
        d = dict(b.arguments); d.pop('self')
        object.__setattr__(self, '_cfg', types.SimpleNamespace(**d))
        return f(self, *a, **k)
    return w
class ConfigMixin: pass
class FromOriginalModelMixin: pass
class AutoencoderMixin: pass
class _L:
    @staticmethod
    def get_logger(n): return _logging.getLogger(n)
logging = _L()
def apply_forward_hook(f): return f
def get_activation(name):
    import torch.nn as nn
    return {"silu": nn.SiLU(), "swish": nn.SiLU(), "gelu": nn.GELU()}[name]
class AutoencoderKLOutput:
    def __init__(self, latent_dist=None): self.latent_dist = latent_dist
class DecoderOutput:
    def __init__(self, sample=None): self.sample = sample
import torch.nn as _nn
class ModelMixin(_nn.Module):
    config = property(lambda self: self._cfg)
class DiagonalGaussianDistribution:
    def __init__(self, p): self.p = p
'''


def load(path, name, extra=""):
    """The modeling file at `path` as module `name`: its relative imports dropped, the stand-ins and `extra` (source of
    classes it imports from sibling files) put after its `import torch.nn.functional as F`."""
    src = "\n".join(l for l in open(path).read().split("\n") if not l.startswith("from ."))
    src = src.replace("import torch.nn.functional as F\n", "import torch.nn.functional as F\n" + STUB + extra + "\n", 1)
    mod = types.ModuleType(name)
    exec(compile(src, path, "exec"), mod.__dict__)
    return mod
