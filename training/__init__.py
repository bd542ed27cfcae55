"""Training of the models we ship weights for (not imported by the agent, the tools or the server).

:mod:`training.label_reader_train` trains the region-label number recognizer that :mod:`tools.regions.label_reader` runs
(``make label-reader``); :mod:`training.label_reader_stream` fine-tunes it on a GPU on freshly drawn scenes.
Both write ``tools/weights/label_reader.onnx``.
"""
