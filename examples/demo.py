"""The seeds' worked examples in paddle-ir: a 2-level LoD and a SelectedRows.

Run with `make demo`. Later issues turn the demo into a full
build -> save -> run -> dump of the sparse-embedding example.
"""

import numpy as np

import paddle_ir as pir


def main() -> None:
    words = np.arange(15, dtype=np.float32).reshape(15, 1)
    articles = pir.create_lod_tensor(words, [[3, 1, 2], [3, 2, 4, 1, 2, 3]])
    print("LoD tensor (3 articles of 3, 1 and 2 sentences):")
    print("  lengths:", articles.recursive_sequence_lengths())
    print("  offsets:", articles.lod())
    third = articles.slice([2])
    print("  <2>-slice:   rows", third.numpy().ravel().tolist(), "lengths",
          third.recursive_sequence_lengths())
    first_sentence = articles.slice([2, 0])
    print("  <2,0>-slice: rows", first_sentence.numpy().ravel().tolist(), "lengths",
          first_sentence.recursive_sequence_lengths())

    grad = pir.SelectedRows(rows=[73, 84], value=np.array([[1, 2], [3, 4]], np.float32),
                            height=100)
    print("SelectedRows:", grad)
    print("  dense shape", grad.shape, "; rows 73 and 84 of the dense form:",
          grad.to_dense()[[73, 84]].tolist())


if __name__ == "__main__":
    main()
