# kdiag corpus (KernelBench format, written for kdiag): cross-entropy loss of (batch, num_classes)
# logits against int64 class targets, mean over the batch.
import torch
import torch.nn as nn

batch_size = 64
num_classes = 500
input_shape = (num_classes,)
dim = 1


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.cross_entropy(predictions, targets)


def get_inputs():
    return [torch.randn(batch_size, *input_shape), torch.randint(0, num_classes, (batch_size,))]


def get_init_inputs():
    return []
