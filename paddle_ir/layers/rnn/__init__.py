"""Fluid 1.7's layers.rnn, one topic file each: cells (RNNCell, GRUCell, LSTMCell, rnn),
decode (Decoder ... dynamic_decode), fused (dynamic_lstm, dynamic_gru, dynamic_lstmp, lstm,
gru_unit, lstm_unit) and beam (beam_search, beam_search_decode).
"""

from paddle_ir.layers.rnn import beam, cells, decode, fused
from paddle_ir.layers.rnn.beam import *  # noqa: F403
from paddle_ir.layers.rnn.cells import *  # noqa: F403
from paddle_ir.layers.rnn.decode import *  # noqa: F403
from paddle_ir.layers.rnn.fused import *  # noqa: F403

__all__ = [
    *beam.__all__,
    *cells.__all__,
    *decode.__all__,
    *fused.__all__,
]
