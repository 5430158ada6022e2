this is not a TensorProto
