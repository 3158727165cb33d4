"""The local model: sentence vectors, embedding endpoints and the heads trained on them."""
