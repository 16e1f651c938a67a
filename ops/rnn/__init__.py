"""Recurrent operators: LSTM, GRU and their units, rnn, CRF, beam search."""
