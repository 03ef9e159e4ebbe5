-- The history store: the figures of many reports, one run per CI job and
-- commit, in one SQLite file that CI keeps between jobs (a cache) and
-- that `tilescope history` and reportlib (reportlib/src/history*.c,
-- tilescope/history.h) read and write.
--
-- Version 1. PRAGMA application_id is 0x54534853 ("TSHS"); PRAGMA
-- user_version is the schema version below; both must match
-- db-schema/format.h. Readers refuse other values (a newer version by
-- name), files without this schema and damaged ones.
--
-- A run is one report added at one commit: where it came from (commit,
-- parent, branch, label, host, the report's path and the SHA-256 of its
-- profile.pop) and its figures. Figures are the metrics of `tilescope
-- diff` under the names its --format=json prints ("cycles.total",
-- "memory.category.vertexCode" ...; reportlib/src/compare.c lists them),
-- so history and diff speak one vocabulary. The simulated figures are
-- exact and have one sample; a noisy figure (wall-clock) may keep several
-- samples of one run.
--
-- Several CI jobs may write the same store at once: the file is in WAL
-- mode, writers wait for each other (a busy timeout) and each run is
-- added in one transaction (BEGIN IMMEDIATE), so nothing is lost and
-- nothing is half-written. A run is known by (commit_sha, label,
-- report_sha256): adding or merging the same one again adds nothing.
--
-- Size: a figure is one row of a WITHOUT ROWID table, about 17 bytes;
-- 10,000 runs of 500 metrics take about 90 MB.
--
-- The plain sqlite3 shell answers the common question, one metric's
-- series on one branch, newest first:
--   SELECT r.commit_sha, r.time, f.value FROM metric m
--     JOIN figure f ON f.metric = m.id JOIN run r ON r.id = f.run
--    WHERE m.name = 'cycles.total' AND r.branch = 'main'
--    ORDER BY r.time DESC, r.id DESC LIMIT 20;

PRAGMA application_id = 1414744147;
PRAGMA user_version = 1;

-- One report added to the store.
CREATE TABLE run (
  id            INTEGER PRIMARY KEY, -- run id: 1, 2, ... in the order runs were added here
  commit_sha    TEXT NOT NULL,       -- the commit the report was made at, as given (a SHA)
  parent_sha    TEXT,                -- its parent commit; NULL when not given
  branch        TEXT,                -- the branch it was made on; NULL when not given
  time          INTEGER NOT NULL,    -- seconds since 1970-01-01 UTC: given (the commit's
                                     -- time, say) or the moment it was added
  label         TEXT NOT NULL,       -- what ran ('' when not given): a model or a
                                     -- configuration, so that one commit may have several runs
  host          TEXT NOT NULL,       -- host name of the machine that added it (gethostname)
  report_path   TEXT NOT NULL,       -- the profile.pop read, as named when added
  report_sha256 TEXT NOT NULL        -- SHA-256 of that profile.pop's bytes, 64 lowercase hex digits
);
-- A run's identity (add and merge skip a run already here) and the runs
-- of a commit.
CREATE UNIQUE INDEX run_identity ON run (commit_sha, label, report_sha256);
-- The runs of one branch, newest first (a series on a branch, `--against last`).
CREATE INDEX run_branch_time ON run (branch, time DESC, id DESC);
-- The runs of every branch, newest first.
CREATE INDEX run_time ON run (time DESC, id DESC);

-- The metrics the store has figures of (names interned: a store repeats
-- each name once per run). A trace's wall-clock figures (`history add` of
-- a .pvti: trace.wall_ns, trace.label.NAME.total_ns and .count) are noisy,
-- their times in unit 'ns'.
CREATE TABLE metric (
  id    INTEGER PRIMARY KEY, -- metric id (>= 1)
  name  TEXT NOT NULL,       -- the diff's metric name ("cycles.total")
  unit  TEXT NOT NULL,       -- the diff's JSON unit: 'bytes', 'cycles', 'tiles', 'count' or 'flops'
  noisy INTEGER NOT NULL     -- 0: exact (simulated; any change is real), 1: wall-clock,
                             -- varying from run to run
);
CREATE UNIQUE INDEX metric_name ON metric (name);

-- The figures: one row per metric, run and sample. The key leads with the
-- metric, so one metric's series is one range of the table (`show`); a
-- run's figures are one lookup per metric (`check`).
CREATE TABLE figure (
  metric INTEGER NOT NULL, -- metric.id
  run    INTEGER NOT NULL, -- run.id
  sample INTEGER NOT NULL, -- 0; for a noisy metric, 0, 1, ... per repeated sample of the run
  value  INTEGER NOT NULL, -- in the metric's unit (bytes, cycles, tiles, a count, FLOPs);
                           -- below 2^63
  PRIMARY KEY (metric, run, sample)
) WITHOUT ROWID;
