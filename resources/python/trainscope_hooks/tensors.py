"""Tensor helpers shared by the dumper and the overflow check."""


def flatten_tensors(value, tensor_type, out=None):
    """Tensors of a module's inputs or outputs, nested tuples/lists/dict values flattened
    in order; everything that is not a tensor is skipped."""
    if out is None:
        out = []
    if isinstance(value, tensor_type):
        out.append(value)
    elif isinstance(value, (tuple, list)):
        for v in value:
            flatten_tensors(v, tensor_type, out)
    elif isinstance(value, dict):
        for v in value.values():
            flatten_tensors(v, tensor_type, out)
    return out


def to_numpy(torch, tensor):
    """A detached CPU copy of `tensor` as a numpy array, and the torch dtype it had when
    numpy has no such type (bfloat16 is written as float32), else None.

    Raises TypeError for tensors numpy cannot hold (quantized without dequantize, ...)."""
    t = tensor.detach()
    if t.layout != torch.strided:
        t = t.to_dense()
    if getattr(t, "is_quantized", False):
        t = t.dequantize()
    if t.device.type != "cpu":
        t = t.cpu()
    converted = None
    if t.dtype == torch.bfloat16:
        converted = "bfloat16"
        t = t.float()
    if hasattr(t, "resolve_conj"):
        t = t.resolve_conj().resolve_neg()
    return t.numpy(), converted
