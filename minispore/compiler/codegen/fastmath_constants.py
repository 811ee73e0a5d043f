"""The numbers of codegen.fastmath: polynomial coefficients and constants per dtype, and the
LLVM layout of each float type (see fastmath's docstring for the approximations they belong to).
"""
# --------------------------------------------------------------------------------------------
# Coefficients (ascending powers) and constants, per dtype. Float32 values are written as the
# exact decimal of the float32 number, so np.float32(literal) reproduces it without double
# rounding.
# --------------------------------------------------------------------------------------------
COEFS = {
    "float32": {
        # expm1(r) = r + r^2 P(r) on |r| <= ln2/2 (deg 4, relative; exp(r) = 1 + expm1(r) too)
        "EXPM1": (0.4999999701976776, 0.16666540503501892, 0.041667211800813675,
                  0.008366897702217102, 0.0013882453786209226),
        # log1p(f) = f + f^2 P(f) on [sqrt(1/2) - 1, sqrt(2) - 1] (deg 8, P(0) = -1/2)
        "LOG1P": (-0.5, 0.3333333134651184, -0.250008225440979, 0.20001228153705597,
                  -0.16623350977897644, 0.14201737940311432, -0.1316022127866745,
                  0.12761752307415009, -0.07634613662958145),
        "ERF": (0.12837916612625122, -0.37612634897232056, 0.11283715069293976,
                -0.02686050906777382, 0.00520385941490531, -0.0008175639668479562,
                8.513105422025546e-05),
        "ERFC": (0.2155524343252182, -0.07756397873163223, 0.026485320180654526,
                 -0.008645188994705677, 0.002788132056593895, -0.0006986758089624345,
                 0.0002527032629586756, -0.00017603213200345635, -8.068862371146679e-05,
                 -3.578633550205268e-05),
        "SIN": (-0.16666655242443085, 0.00833216030150652, -0.0001951520098373294),
        "COS": (0.04166664555668831, -0.0013887315290048718, 2.4433062208117917e-05),
        # FLOAT64 (see WIDE): pi/2 in 3 parts of <= 24 significant bits (last one full), so
        # q * part is exact in float64 for q < 2**29
        "PIO2": (1.5707963705062866, -4.371138828673793e-08, -1.7151244994428829e-15),
    },
    "float64": {
        # expm1(r) = r + r^2 P(r) on |r| <= ln2/2 (deg 10; fitted relative to exp(r), which keeps
        # expm1 within its bound too)
        "EXPM1": (0.5, 0.1666666666666667, 0.04166666666666658, 0.008333333333326035,
                  0.0013888888888940786, 0.00019841269875202488, 2.4801587193319293e-05,
                  2.7557254887813877e-06, 2.7557398723323527e-07, 2.5105439163297225e-08,
                  2.087328446419885e-09),
        "LOGR": (0.666666666666667, 0.39999999999897784, 0.28571428626698725,
                 0.22222211024092733, 0.1818289676191957, 0.15331479430502895,
                 0.14619322718362654),
        "ERF": (0.1283791670955126, -0.37612638903183726, 0.11283791670953704,
                -0.02686617064480663, 0.0052239776216031816, -0.0008548326754918015,
                0.00012055321042151598, -1.4925299738781745e-05, 1.6455213924720426e-06,
                -1.6275476075818214e-07, 1.4046047240933253e-08, -8.481850149129335e-10),
        "ERFC": (0.22962131986684, 1.5915997174747085, 3.631265122387647, 4.977707342125307,
                 1.5005795349158133, -6.758570217590075, -5.1951610407143365, 15.319725407639078,
                 9.524879820458578, -48.67160428535846, 7.775919866875777, 144.16059515859197,
                 -197.31481778452437),
        "SIN": (-0.1666666666666663, 0.008333333333322104, -0.0001984126982957761,
                2.755731361709867e-06, -2.5050747069657468e-08, 1.5896188767000993e-10),
        "COS": (0.041666666666666595, -0.0013888888888873036, 2.480158728883857e-05,
                -2.7557314175401707e-07, 2.087570029929188e-09, -1.1358507762739864e-11),
        # pi/2 in 5 parts of <= 26 significant bits (last one full): q * part exact for q < 2**27
        "PIO2": (1.5707963407039642, -1.3909067675399456e-08, 6.123233932053594e-17,
                 6.368317178484799e-25, -1.4973849048591698e-33),
    },
}

SCALARS = {
    "float32": {
        "LOG2E": 1.4426950216293335,
        "TWO_OVER_PI": 0.6366197723675814, "HALF_D": 0.5,     # float64 (see WIDE)
        # ln2 = hi + lo, hi with 12 significant bits: n * hi exact for |n| < 2**12
        "LN2_HI": 0.693115234375, "LN2_LO": 3.194618329871446e-05,
        "LN2": 0.6931471824645996,  # rounded ln2 (see log and tanh)
        # exp: below EXP_LO the result rounds to 0, above EXP_HI it overflows to inf
        "EXP_LO": -104.0, "EXP_HI": 89.0,
        # x * log2(e) + SHIFT rounds to the integer n and leaves n + offset in the low mantissa
        # bits (offset 2 * bias for _fm_exp_scales, bias - 1 for _fm_pow2_low)
        "EXP_SHIFT": 1.5 * 2.0 ** 23 + 2 * 127, "EXPM1_SHIFT": 1.5 * 2.0 ** 23 + 126,
        "EXPM1_LO": -30.0,          # expm1(x) rounds to -1 below this
        # from here on 1 + exp(x) rounds to exp(x): sigmoid(x) and tanh(x/2) round to 1
        "SATURATE": 18.2,
        "ERF_SPLIT": 0.9, "ERF_HI": 4.0, "ERFC_X0": 2.4375,
        "TINY": 1.1754943508222875e-38,     # smallest normal
        "SUB_SCALE": 33554432.0, "SUB_LOG2": 25.0,     # 2**25: scales subnormals to normal
        "SINCOS_LIMIT": 16777216.0,     # 2**24 (q stays exact in float32)
    },
    "float64": {
        "LOG2E": 1.4426950408889634, "TWO_OVER_PI": 0.6366197723675814,
        # ln2 = hi + lo, hi with 29 significant bits: n * hi exact for |n| < 2**24
        "LN2_HI": 0.6931471806019545, "LN2_LO": -4.2009150726810846e-11,
        "LN2": 0.6931471805599453,
        "EXP_LO": -750.0, "EXP_HI": 710.0,
        "EXP_SHIFT": 1.5 * 2.0 ** 52 + 2 * 1023, "EXPM1_SHIFT": 1.5 * 2.0 ** 52 + 1022,
        "EXPM1_LO": -45.0,
        "SATURATE": 38.2,
        "ERF_SPLIT": 0.9, "ERF_HI": 6.0, "ERFC_T0": 0.234375,
        "TINY": 2.2250738585072014e-308,
        "SUB_SCALE": 18014398509481984.0, "SUB_LOG2": 54.0,     # 2**54
        "SINCOS_LIMIT": 134217728.0,    # 2**27
    },
}
# float32 sin/cos reduce their argument in float64: these constants are float64 in that preamble.
WIDE = {"float32": {"PIO2", "TWO_OVER_PI", "HALF_D"}, "float64": set()}
COMMON_SCALARS = {"ZERO": 0.0, "HALF": 0.5, "QUARTER": 0.25, "ONE": 1.0, "TWO": 2.0,
                   "FOUR": 4.0}

# Integer layout of the float, for the exponent-field intrinsics.
LAYOUT = {
    # bits, exponent bias, mantissa bits, bit pattern of sqrt(1/2) (rounded down)
    "float32": dict(BITS=32, BIAS=127, MANT=23, SQRTH_BITS=0x3F3504F3,
                    IRFLOAT="_fm_ir.FloatType()"),
    "float64": dict(BITS=64, BIAS=1023, MANT=52, SQRTH_BITS=0x3FE6A09E667F3BCD,
                    IRFLOAT="_fm_ir.DoubleType()"),
}
