"""The base floor: what every part of simrate uses (errors, events, the scale, rater names, frames)."""
