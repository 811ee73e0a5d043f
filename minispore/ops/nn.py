"""Neural-network ops, one module per family, gathered here for the functional API
(`ops.conv2d`, `ops.cross_entropy`...):

    activation      softmax, log_softmax, relu6, leaky_relu, elu, hardsigmoid, hardswish
    activation_ext  prelu, mish, hardtanh, selu, celu, glu, swiglu, logsigmoid, softsign,
                    softmin, softshrink, hardshrink, tanhshrink, threshold, fast_gelu, rrelu,
                    gumbel_softmax
    attention       multi_head_attention_forward, scaled_dot_product_attention
    conv            conv2d, and the primitives of its derivatives
    conv_nd         conv1d, conv3d, conv_transpose1d/2d/3d (on conv's primitives)
    pool            max_pool2d (and its derivative primitives), avg_pool2d
    pool_ext        max_pool3d, avg_pool3d, adaptive pools, lp_pool1d/2d, max_unpool1d/2d/3d
    resize          interpolate, pixel_shuffle/unshuffle, unfold, fold
    rotary          rotary_position_embedding
    sampling        grid_sample (bilinear / nearest sampling at grid positions)
    padding         pad (constant, reflect, replicate, circular)
    normalization   batch_norm, layer_norm, group_norm, lrn, rms_norm
    dropout         dropout
    loss            cross_entropy, nll_loss, softmax_cross_entropy_with_logits, binary
                    cross-entropy, kl_div, mse_loss, l1_loss, smooth_l1_loss
    loss_ext        huber, soft margin, margin ranking, hinge/cosine embedding, triplet,
                    multi margin, multilabel soft margin, gaussian nll
    ctc             ctc_loss (the alpha/beta recursions as primitives)

`window` holds the sliding-window geometry that conv and pool share, `arguments` the argument
checks of the user-facing functions.
"""
from .activation import *
from .activation_ext import *
from .attention import *
from .conv import *
from .conv_nd import *
from .ctc import *
from .dropout import *
from .sampling import *
from .loss import *
from .loss_ext import *
from .normalization import *
from .padding import *
from .pool import *
from .pool_ext import *
from .resize import *
from .rotary import *
