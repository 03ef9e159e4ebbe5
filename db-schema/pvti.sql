-- .pvti: a system trace, one SQLite file per traced process, written by
-- libtilescope-pvti (pvti/src/, which the runtime links) and read by reportlib.
--
-- Version 1. PRAGMA application_id is 0x54535654 ("TSVT"); PRAGMA
-- user_version is the schema version below; both must match
-- db-schema/format.h. Readers refuse other values.
--
-- The logical model is the slice model: events (spans) with a start, an
-- end, a thread, a channel, a name, a depth and a parent; instant events;
-- counter series; heatmaps; metadata; processes and threads. Times are
-- integer nanoseconds since the trace origin (the moment the trace was
-- opened); process.start_mono_ns and process.start_wall_ns place the
-- origin on the host's monotonic and wall clocks, so several processes'
-- traces line up.
--
-- A traced program may record ten million events a second, more than
-- SQLite can take as rows, so events are stored physically as packed
-- per-thread chunks (table event_chunk, encoding below). reportlib
-- exposes the logical per-event view (including to SQL, through the
-- `span` table described after event_chunk). When the trace is closed the writer adds small
-- summary tables (label_stats, timeline_lod, thread.events) so that the
-- plain sqlite3 shell answers the common questions, e.g. the top
-- tracepoints by total time:
--   SELECT channel, name, count, total_ns, self_ns FROM tracepoint_stats
--    ORDER BY total_ns DESC LIMIT 10;
-- A trace whose process died has no summary rows; trace_metadata has no
-- 'pvti.complete' key then, and readers compute them from the chunks.
--
-- The file is in WAL mode while it is written (a reader opening it
-- read-only sees every committed flush, also after a crash that leaves
-- the -wal file behind) and back in rollback mode once closed cleanly.
--
-- Names of tracepoints are interned in table `string`; every *_name /
-- `name` column holding an integer is a string.id.

PRAGMA application_id = 1414747732;
PRAGMA user_version = 1;

-- The traced process: exactly one row.
CREATE TABLE process (
  pid           INTEGER NOT NULL, -- OS process id
  host          TEXT NOT NULL,    -- host name (gethostname)
  name          TEXT NOT NULL,    -- program name (its executable's base name)
  command_line  TEXT,             -- arguments joined by spaces, as /proc/self/cmdline
  start_wall_ns INTEGER NOT NULL, -- trace origin on CLOCK_REALTIME: ns since 1970-01-01 UTC
  start_mono_ns INTEGER NOT NULL, -- trace origin on CLOCK_MONOTONIC: ns since boot
  clock         TEXT NOT NULL,    -- how event times were taken: 'rdtsc' or 'monotonic'
  ticks_per_s   REAL              -- rdtsc: the measured counter frequency (Hz); else NULL
);

-- Threads that recorded anything (or were named). Ids are small integers
-- given in the order threads first traced; the OS thread id is kept too.
CREATE TABLE thread (
  id     INTEGER PRIMARY KEY, -- thread id used everywhere in this file (>= 1)
  tid    INTEGER NOT NULL,    -- OS thread id (gettid)
  name   TEXT NOT NULL,       -- pvti_thread_set_name(), else the OS thread name
  events INTEGER              -- events (spans) recorded; written at close, NULL before
);

-- Trace channels ("Drivers", "Poplar", "Framework" and user channels).
CREATE TABLE channel (
  id      INTEGER PRIMARY KEY, -- channel id used in events (0, 1, 2: the built-in ones)
  name    TEXT NOT NULL UNIQUE,
  enabled INTEGER NOT NULL     -- 1 when the channel was being recorded when last written
);

-- Interned names (tracepoint names).
CREATE TABLE string (
  id    INTEGER PRIMARY KEY, -- referenced by event names, instant.name, label_stats.name
  value TEXT NOT NULL         -- at most 16,384 bytes (TSF_MAX_NAME_BYTES); the
                              -- writer cuts a longer span name there
);

-- Events (spans), packed: each row holds `count` events of one thread, in
-- the order they ended. An event is identified by (thread, seq), seq being
-- its ordinal among the thread's tracepoints in the order they began
-- (0, 1, 2 ...); `parent` names the enclosing event of the same thread by
-- its seq. A parent ends after its children, so it sits in the same chunk
-- or a later one.
--
-- Blob encoding, version 1 (all integers LEB128, unsigned unless zigzag;
-- zigzag maps a signed v to (v << 1) ^ (v >> 63)):
--   blob  := 0x01 event*
--   event := flags [name] [channel] [depth] [seq] [parent] start dur
--   flags: one byte; a set bit means the field is present, a clear bit
--     that it repeats the previous event's value in this blob:
--     0x01 name     string.id
--     0x02 channel  channel.id
--     0x04 depth    0 for an outermost event
--     0x08 seq      zigzag(seq - (previous seq + 1)); absent: previous + 1
--     0x10 parent   0: none; p > 0: parent seq = seq - p. Absent: the same
--                   parent seq as the previous event (absent on the first
--                   event: none)
--     0xe0 must be zero.
--   start: zigzag(start_ns - previous start_ns)
--   dur:   end_ns - start_ns
-- Before the first event of a blob the previous values are: name 0,
-- channel 0, depth 0, seq -1, parent none, start_ns 0. A reader checks
-- that it decodes exactly `count` events and that the blob ends there.
CREATE TABLE event_chunk (
  id       INTEGER PRIMARY KEY, -- write order
  thread   INTEGER NOT NULL,    -- thread.id
  first_ns INTEGER NOT NULL,    -- earliest start among its events (ns)
  last_ns  INTEGER NOT NULL,    -- latest end among its events (ns); never decreases
                                -- from one chunk of a thread to the next
  count    INTEGER NOT NULL,    -- events in the blob (>= 1)
  data     BLOB NOT NULL        -- the encoding above
);
-- The chunks of a thread that may hold events ending at or after a time;
-- covering (first_ns, count), so a reader finds the chunks overlapping a
-- window without reading the table.
CREATE INDEX event_chunk_thread_last ON event_chunk(thread, last_ns, first_ns, count);
CREATE INDEX event_chunk_thread_first ON event_chunk(thread, first_ns);

-- The spans as rows: `span`, which `tilescope sql` and tsr_trace_query
-- give every trace's connection (not a table of this file: reportlib
-- decodes event_chunk for it with the same decoder `tilescope trace` and
-- the System Analyser use; reportlib/src/trace-span-table.c). Read-only,
-- one row per span, in thread then chunk order:
--   id          INTEGER thread * 4294967296 + seq, unique in the file
--   thread      INTEGER thread.id
--   thread_name TEXT    thread.name
--   pid         INTEGER process.pid
--   seq         INTEGER the span's seq in its thread (event_metadata.seq)
--   name        TEXT    its name (string.value)
--   channel     TEXT    its channel (channel.name)
--   start_ns    INTEGER start (ns since the trace origin, as event_chunk)
--   end_ns      INTEGER end (ns)
--   dur_ns      INTEGER end_ns - start_ns
--   depth       INTEGER 0 for an outermost span
--   parent      INTEGER the enclosing span's id; NULL at depth 0
-- WHERE thread = ? reads that thread's chunks only; id = ? (a join on
-- parent = id) looks one span up. For example, time by name:
--   SELECT name, count(*) AS spans, sum(dur_ns) AS total_ns FROM span
--    GROUP BY name ORDER BY total_ns DESC;
-- and what ran inside what:
--   SELECT p.name AS parent, s.name, s.dur_ns FROM span s
--     JOIN span p ON p.id = s.parent ORDER BY s.dur_ns DESC LIMIT 10;

-- JSON attached to one event (pvti_event_metadata). The runtime attaches
-- to the compile span ("Compiling ...") and each run span ("Run program
-- ...") of an engine that writes a profile.pop the link to that report,
-- which the System Analyser follows into the Graph Analyser:
--   {"autoReport": {"directory": "../report",  -- the report's directory,
--                                              -- relative to this file's
--                                              -- directory ("." when the
--                                              -- same), so a run folder
--                                              -- holding both can move;
--                                              -- absolute in traces
--                                              -- before Tilescope 0.4,
--                                              -- which readers still take
--                   "subdirectory": "name",    -- where its files move if a
--                                              -- later engine reports to
--                                              -- the same directory
--                   "engine": "name",          -- or "engine<index>"
--                   "run": 0}}                 -- run spans of kept runs:
--                                              -- the run's index in the
--                                              -- report (run.id)
-- (reportlib: tsr_trace_dup_span_report).
CREATE TABLE event_metadata (
  thread INTEGER NOT NULL, -- thread.id
  seq    INTEGER NOT NULL, -- the event's seq in that thread
  json   TEXT NOT NULL,    -- a JSON value as given
  PRIMARY KEY (thread, seq)
) WITHOUT ROWID;

-- Instant events (points in time).
CREATE TABLE instant (
  thread  INTEGER NOT NULL, -- thread.id
  t_ns    INTEGER NOT NULL, -- when (ns)
  channel INTEGER NOT NULL, -- channel.id
  name    INTEGER NOT NULL, -- string.id
  depth   INTEGER NOT NULL, -- open events around it on its thread
  parent  INTEGER           -- seq of the innermost open event, NULL when none
);
CREATE INDEX instant_time ON instant(t_ns);

-- Graphs (a chart each) and their series of values.
CREATE TABLE graph (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  unit TEXT NOT NULL  -- unit of every value in the graph ('' when none)
);
CREATE TABLE series (
  id    INTEGER PRIMARY KEY,
  graph INTEGER NOT NULL, -- graph.id
  name  TEXT NOT NULL
);
CREATE TABLE sample (
  series INTEGER NOT NULL, -- series.id
  t_ns   INTEGER NOT NULL, -- when (ns)
  thread INTEGER NOT NULL, -- thread.id of the thread that added it
  value  REAL NOT NULL     -- in the graph's unit
);
CREATE INDEX sample_series_time ON sample(series, t_ns);

-- Heatmaps: at each sample, how many values fell in each bucket.
CREATE TABLE heatmap (
  id    INTEGER PRIMARY KEY,
  name  TEXT NOT NULL,
  unit  TEXT NOT NULL, -- unit of the bucketed values ('' when none)
  edges TEXT NOT NULL  -- JSON array of the n ascending bucket edges; bucket 0
                       -- is below edges[0], bucket i in [edges[i-1], edges[i]),
                       -- bucket n from edges[n-1] up
);
CREATE TABLE heatmap_sample (
  heatmap INTEGER NOT NULL, -- heatmap.id
  t_ns    INTEGER NOT NULL, -- when (ns)
  bucket  INTEGER NOT NULL, -- 0 .. n (see heatmap.edges)
  count   INTEGER NOT NULL  -- values in the bucket (> 0; empty buckets have no row)
);
CREATE INDEX heatmap_sample_time ON heatmap_sample(heatmap, t_ns);

-- Key / JSON value pairs about the whole trace. The library's own keys:
--   pvti.options          the options the trace was opened with (object)
--   pvti.options_warning  why PVTI_OPTIONS could not be used as given
--   pvti.complete         true once closed cleanly (summary tables written)
--   pvti.unbalanced_ends  pvti_end calls with no open span on their channel
--   pvti.unclosed_begins  spans still open at close (not in event_chunk)
--   pvti.dropped          records lost (out of memory; normally 0)
--   pvti.too_deep         spans ignored past the deepest nesting (250)
--   pvti.stopped_ns       when the duration option stopped recording (ns)
--   pvti.flushes          write transactions committed
--   pvti.idle_sleeps      times the writer slept for want of records
-- Other keys come from pvti_trace_metadata().
CREATE TABLE trace_metadata (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL -- JSON
) WITHOUT ROWID;

-- Summary, written at close: statistics per (channel, tracepoint name)
-- over all threads. Self time is the time not covered by child events.
CREATE TABLE label_stats (
  channel  INTEGER NOT NULL, -- channel.id
  name     INTEGER NOT NULL, -- string.id
  count    INTEGER NOT NULL, -- events
  total_ns INTEGER NOT NULL, -- sum of durations (ns)
  self_ns  INTEGER NOT NULL, -- sum of durations minus their children's (ns)
  min_ns   INTEGER NOT NULL, -- shortest (ns)
  max_ns   INTEGER NOT NULL, -- longest (ns)
  PRIMARY KEY (channel, name)
) WITHOUT ROWID;

-- Summary, written at close: the level of detail for drawing a whole
-- thread's timeline without decoding its chunks. Level 0 divides the
-- trace into buckets of width_ns (a power of two ns chosen so that the
-- trace spans at most 4,096 of them); each level above is 16 times
-- coarser, up to a single bucket. Only buckets holding something have a
-- row.
CREATE TABLE timeline_lod (
  thread   INTEGER NOT NULL, -- thread.id
  level    INTEGER NOT NULL, -- 0: finest
  bucket   INTEGER NOT NULL, -- the bucket covers [bucket * width_ns, (bucket + 1) * width_ns)
  width_ns INTEGER NOT NULL, -- bucket width at this level (ns)
  events   INTEGER NOT NULL, -- events (any depth) starting in the bucket
  busy_ns  INTEGER NOT NULL, -- time of the bucket covered by outermost events (ns)
  top_name INTEGER,          -- string.id of the outermost events covering most of
                             -- the bucket (consecutive ones of one name add up)
  PRIMARY KEY (thread, level, bucket)
) WITHOUT ROWID;

-- label_stats with names: "top tracepoints" in the shell, and in
-- `tilescope sql` (tsr_trace_query), which makes it a TEMP view from this
-- text as compiled into Tilescope, never from the file's copy (not run;
-- a file whose copy differs is refused when opened).
CREATE VIEW tracepoint_stats AS
  SELECT c.name AS channel, s.value AS name, l.count, l.total_ns, l.self_ns,
         l.min_ns, l.max_ns, l.total_ns / l.count AS mean_ns
    FROM label_stats AS l
    JOIN channel AS c ON c.id = l.channel
    JOIN string AS s ON s.id = l.name;
