"""`goal` and `done()`: the objective of a long run, progress notes, and saying it is achieved."""

from .agents import _call


class Goal:
    """goal.text is the current objective (or None); goal.progress("...") records a step forward (an
    autonomous run that sees no progress, no new output and no file change for a while is paused);
    goal.done("note") says it is achieved: the run ends after this cell, with the note as its answer."""

    @property
    def text(self):
        return _call("goal.get", {})["text"]

    def set(self, text):
        return _call("goal.set", {"text": str(text)})

    def progress(self, text):
        return _call("goal.progress", {"text": str(text)})

    def done(self, note=None):
        return _call("goal.done", {"note": None if note is None else str(note)})

    def __repr__(self):
        text = self.text
        return f"<goal: {text!r}>" if text else "<goal: none set; goal.set(text) sets one>"


goal = Goal()


def done(note=None):
    """Says the work is finished (in autonomous mode, the run ends after this cell)."""
    return goal.done(note)
