"""`schedule(prompt, every=/at=/cron=)`: re-enter this session later with a prompt."""

from .agents import _call, _given


class Schedule:
    """schedule("check the build", every="10m") → job id. Also at="2026-12-24T09:00:00Z" or cron="0 9 * * 1".

    Each tick is delivered to this session as a message (a new turn when it is idle); ticks missed while
    nothing ran are delivered as one. schedule.list() shows the jobs, schedule.cancel(id) ends one.
    """

    def __call__(self, prompt, *, every=None, at=None, cron=None):
        return _call("schedule.add", {"prompt": str(prompt), **_given(every=every, at=at, cron=cron)})

    def list(self):
        return _call("schedule.list", {})

    def cancel(self, job_id):
        return _call("schedule.cancel", {"id": str(job_id)})

    def __repr__(self):
        return "<schedule: re-enter this session later; help(schedule) for usage>"


schedule = Schedule()
