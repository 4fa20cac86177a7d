"""The words of a generated query: sentence frames, context nouns and parameter names.

Train and test draw from disjoint frames and disjoint context nouns (as the demo does), so that a
model scored on test frames has learned the functions, not the sentences. `{noun}` is a context
("weather station readings"), `{result}` the function's phrase with the parameter names filled in.
"""

from __future__ import annotations

TRAIN_FRAMES = (
    "In a tool that tracks {noun}, write a function that returns {result}.",
    "You are processing {noun}. Return {result}.",
    "A program about {noun} needs {result}. Implement it.",
    "Working with {noun}, compute {result}.",
    "Write a function for a {noun} pipeline that computes {result}.",
    "Given inputs from {noun}, return {result}.",
    "For a report on {noun}, implement a function returning {result}.",
    "Your team analyses {noun}. Write code that gives {result}.",
    "As part of a {noun} dashboard, return {result}.",
    "Implement a helper for {noun} that returns {result}.",
    "The data come from {noun}. The function must return {result}.",
    "We study {noun}; produce {result}.",
)
TEST_FRAMES = (
    "I am looking at {noun} and need {result}. Could you write that function?",
    "Could you help me with {noun}? I want {result}.",
    "My project on {noun} requires {result}; please implement it.",
)
TRAIN_NOUNS = (
    "store prices",
    "weather station temperatures",
    "exam scores",
    "parcel weights",
    "delivery distances",
    "athlete heights",
    "customer ages",
    "vehicle speeds",
    "monthly salaries",
    "task durations",
    "election votes",
    "lab measurements",
    "pixel intensities",
    "stock returns",
    "network packets",
    "game levels",
)
TEST_NOUNS = (
    "rainfall amounts",
    "sensor readings",
    "daily step counts",
    "river water levels",
    "warehouse stock",
)

# slot -> names a parameter of that slot may take (a slot not listed keeps its own name)
PARAMETER_NAMES: dict[str, tuple[str, ...]] = {
    "x": ("x", "values", "data", "arr", "xs", "nums", "seq", "v", "series", "samples", "readings"),
    "y": ("y", "other", "ys", "w", "second", "ref"),
    "m": ("m", "matrix", "grid", "table", "mat", "a"),
    "n": ("n", "other_matrix", "b", "second_grid"),
    "axis": ("axis", "dim", "along"),
    "k": ("kernel", "k", "weights_k"),
    "i": ("i", "index", "indices", "idx", "pos"),
    "t": ("t", "volume", "cube"),
}
