-- profile.pop: the graph profile and execution profile of one engine.
--
-- Written by the IPU Model runtime (instrument/src/autoreport/profile-writer.c)
-- when autoReport asks for it; read by reportlib, the `tilescope` command
-- and the Graph Analyser. The layout follows the "Profiling" chapter of
-- the Poplar user guide (graph profile: target, optimizationInfo, graph,
-- vertexTypes, computeSets, exchanges, programs, memory; execution
-- profile: profilerMode, programTrace, simulation), with the nesting of
-- the guide's JSON flattened into tables. This script is embedded in the
-- runtime and executed as written, comments included, on an empty file.
--
-- Identity. application_id is "TSPF" (0x54535046); user_version is the
-- schema version, raised on any change a reader could notice. A reader
-- refuses an application_id it does not know and names a user_version it
-- does not understand.
--
-- Publishing, and the pair with debug.cbor. The file is built under a
-- temporary name in its directory (".profile.pop.<pid>.<n>.tmp") and
-- renamed into place complete; runs added later go into a copy renamed
-- the same way, so profile.pop is absent or whole at every moment.
-- debug.cbor beside it (autoReport.outputDebugInfo) carries the same
-- identity as meta report_id. The writer keeps the directory holding a
-- matching pair, or profile.pop alone, at every moment, whenever it is
-- killed: the earlier report's debug.cbor is removed before the new
-- profile.pop is first renamed into place, and the new debug.cbor
-- follows it. A reader takes the pair from one moment: it opens
-- debug.cbor, then profile.pop, and starts again when profile.pop's
-- path names another file once both are open. A pair whose identities
-- still differ was mixed by something else (a copy, an older writer);
-- the file created earlier is the stale one.
--
-- Conventions.
--  * Ids are the 0-based indexes of the guide's arrays: compute_set.id is
--    the index into "computeSets", program.id into "programs", and so on;
--    the engine program that ran is the index into "controlPrograms".
--    Every cross-reference is one of these ids; "none" is NULL.
--  * Names (of compute sets, programs, variables, vertex types, exchanges,
--    debug contexts) are interned: a column called `name` holds a
--    string.id. Tags from a fixed vocabulary (program and step types,
--    memory categories and regions, element types) are short TEXT as the
--    guide spells them.
--  * Units are in the column comments: bytes, cycles (tile clock cycles,
--    see target.clock_frequency), tiles, Hz, ns.
--  * Integers are SQLite's signed 64-bit integers; no count in a profile
--    reaches 2^63.
--  * Memory is one replica's (every replica's is the same); tile numbers
--    run over all IPUs of one replica, IPU i holding tiles
--    i * tiles_per_ipu .. (i + 1) * tiles_per_ipu - 1.
--
-- Per-tile arrays ("tile runs" blobs). The bulk of a real report is
-- arrays with one value per tile (1,472 tiles per IPU) for each of tens
-- of thousands of compute sets, exchanges and variables. A row per tile
-- would be tens of millions of rows; instead each array is one BLOB in a
-- column whose name ends in _by_tile, encoded as runs of equal values:
--
--   blob   := version run*          version is the byte 0x01
--   run    := gap count value       three unsigned LEB128 integers
--
--   LEB128: 7 bits per byte, least significant group first, the high bit
--   set on every byte but the last; at most 10 bytes (64 bits).
--   gap:   tiles left at zero between the end of the previous run (or
--          tile 0 for the first run) and the start of this run.
--   count: tiles in the run (at least 1), all holding `value`.
--   Tiles after the last run are zero; a blob of the version byte alone
--   (or NULL) is all zeros. A run never reaches past the array's length
--   (num_tiles unless the column says otherwise).
--
-- For example the array [0, 0, 5, 5, 5, 0, 7] is 01 02 03 05 01 01 07:
-- skip 2, three tiles of 5, skip 1, one tile of 7. A compute set on a few
-- tiles, or one whose tiles all take the same time, is a few bytes; a
-- fully varied array is about 3 to 6 bytes per tile. Decoding is one pass
-- and a reader must check every run against the array's length.
-- reportlib registers SQL functions over these blobs on its connections
-- (the value on one tile, the sum, the maximum, a table of tile/value
-- rows), so its queries and the caller's (tsr_report_query, `tilescope
-- sql`) can use them like columns; the plain `sqlite3` shell cannot
-- decode them, which is why every blob has its totals beside it as plain
-- columns. Integers above 2^63 - 1 are an SQL error; NULL is all zeros.
--
--   tile_value(blob, tile)  the value on tile `tile` (0 past the end)
--   tile_sum(blob)          the sum over all tiles
--   tile_max(blob)          the largest value of any tile
--   tile_runs(blob)         a table-valued function: one row per tile of
--                           num_tiles, zeros included, in tile order,
--                           with columns `tile` and `value`
--
--   -- the compute sets with the most cycles summed over tiles
--   SELECT s.text AS compute_set, tile_sum(c.cycles_by_tile) AS total_cycles,
--          tile_max(c.cycles_by_tile) AS slowest_tile_cycles
--     FROM compute_set c JOIN string s ON s.id = c.name
--    ORDER BY total_cycles DESC LIMIT 10;
--   -- the tiles compute set 0 runs on, and their cycles
--   SELECT r.tile, r.value AS cycles
--     FROM compute_set c, tile_runs(c.cycles_by_tile) r
--    WHERE c.id = 0 AND r.value > 0;
--   -- variables on tile 5, largest first
--   SELECT s.text, tile_value(v.bytes_by_tile, 5) AS bytes
--     FROM variable v JOIN string s ON s.id = v.name
--    WHERE bytes > 0 ORDER BY bytes DESC;
--
-- A caller's statement (tsr_report_query, `tilescope sql`) must be one
-- read: SELECT, WITH, VALUES or EXPLAIN, calling only these functions,
-- the aggregates and window functions (count, sum, total, avg, min, max,
-- group_concat, row_number, rank, dense_rank, percent_rank, cume_dist,
-- ntile, lag, lead, first_value, last_value, nth_value) and abs, char,
-- coalesce, format, glob, hex, ifnull, iif, instr, length, like, lower,
-- ltrim, nullif, printf, quote, replace, round, rtrim, substr, substring,
-- trim, typeof, unicode, upper. The views at the end of this file are
-- not expanded there (nothing defined in a file runs): join `string`.
--
-- Questions the shell answers directly (each one an index scan or a scan
-- of a small table):
--
--   -- the 10 tiles using the most memory, including gaps
--   SELECT tile, total_including_gaps FROM tile_memory
--    ORDER BY total_including_gaps DESC LIMIT 10;
--   -- memory by category (bytes, one replica, all tiles)
--   SELECT category, SUM(total) AS bytes FROM memory_category
--    GROUP BY category ORDER BY bytes DESC;
--   -- the 10 longest execution steps of all runs
--   SELECT run, id, type, program, cycles FROM step
--    ORDER BY cycles DESC LIMIT 10;
--   -- active cycles by vertex type (one execution of each compute set)
--   SELECT s.text, SUM(c.active_cycles) AS cycles
--     FROM compute_set_vertex_type c
--     JOIN vertex_type v ON v.id = c.vertex_type JOIN string s ON s.id = v.name
--    GROUP BY c.vertex_type ORDER BY cycles DESC;
--   -- the same weighted by how often each compute set ran in run 0
--   SELECT s.text, SUM(c.active_cycles) AS cycles
--     FROM step t JOIN compute_set_vertex_type c ON c.compute_set = t.compute_set
--     JOIN vertex_type v ON v.id = c.vertex_type JOIN string s ON s.id = v.name
--    WHERE t.run = 0 GROUP BY c.vertex_type ORDER BY cycles DESC;
--
-- The file is written under a temporary name and renamed into place, so
-- a profile.pop that exists is complete. A copy of the graph profile is
-- renamed into place as soon as it is written; the first runs are added
-- to the temporary file, which then replaces that copy; later runs
-- (autoReport.streamAtEachRun, or when the engine is freed) go into a
-- copy that replaces the file. The writer drops the CREATE INDEX indexes below
-- while their tables fill and makes them again from this text, so the
-- file's sqlite_schema holds these statements as written.

PRAGMA application_id = 1414746182;
PRAGMA user_version = 1;

-- ---------------------------------------------------------------------------
-- About the report
-- ---------------------------------------------------------------------------

-- Facts about the report as key/value pairs. Keys written:
--   tilescope_version   TEXT    version of the runtime that wrote the file
--   created_unix_ns     INTEGER creation time, ns since 1970-01-01 UTC
--   created             TEXT    the same as ISO 8601 UTC
--                               ("2024-05-01T12:34:56.123456789Z")
--   command_line        TEXT    the model's argv joined by spaces (if known)
--   engine_name         TEXT    the engine's name (if it has one)
--   profiler_mode       TEXT    the execution profile's profilerMode:
--                               IPU_MODEL, COMPUTE_SETS,
--                               SINGLE_TILE_COMPUTE_SETS, VERTICES or
--                               EXTERNAL_EXCHANGES
--   replication_factor  INTEGER replicas of the graph (memory is one replica's)
--   always_live_bytes   INTEGER bytes live through every program step (all
--                               tiles of one replica); see liveness_step
--   lowered_vars        INTEGER 1 when compiler allocations are listed in
--                               `variable` (autoReport.outputLoweredVars)
--   include_flops       INTEGER 1 when profiler.includeFlopEstimates was set
--   include_cycles      INTEGER 1 when profiler.includeCycleEstimates was set
-- Readers ignore keys they do not know.
CREATE TABLE meta (
	key   TEXT PRIMARY KEY NOT NULL, -- the name above
	value                            -- INTEGER or TEXT as listed (no affinity:
	                                 -- stored as written)
) WITHOUT ROWID;

-- The engine options in force (code options merged with
-- POPLAR_ENGINE_OPTIONS, the environment winning), in the order given.
CREATE TABLE option (
	position INTEGER PRIMARY KEY, -- 0-based order of the option
	name     TEXT NOT NULL,       -- "autoReport.all", "debug.instrument" ...
	value    TEXT NOT NULL        -- as given ("true", "./reports" ...)
);

-- Interned names: every `name` column elsewhere is an id here. Large
-- reports repeat names (vertex types, exchange names) many times. The
-- UNIQUE index finds a name's id for a lookup by text.
CREATE TABLE string (
	id   INTEGER PRIMARY KEY, -- referenced by name columns
	text TEXT NOT NULL UNIQUE -- the name, UTF-8, as the model gave it; at most
	                          -- 16,384 bytes (TSF_MAX_NAME_BYTES)
);

-- ---------------------------------------------------------------------------
-- Target and graph (the guide's "target", "optimizationInfo", "graph")
-- ---------------------------------------------------------------------------

-- The hardware the graph was compiled for: exactly one row.
CREATE TABLE target (
	id                          INTEGER PRIMARY KEY CHECK (id = 0), -- always 0
	type                        TEXT NOT NULL,    -- "IPU_MODEL" or "CPU" (the guide's type)
	name                        TEXT NOT NULL,    -- "ipu1" (Mk1), "ipu2" (Mk2 GC200), "bow", "cpu"
	ipu_version                 TEXT NOT NULL,    -- "Mk1", "Mk2" or "Bow"
	num_ipus                    INTEGER NOT NULL, -- IPUs of one replica
	tiles_per_ipu               INTEGER NOT NULL, -- tiles on each IPU
	num_tiles                   INTEGER NOT NULL, -- num_ipus * tiles_per_ipu; the length of
	                                              -- every *_by_tile blob unless noted
	bytes_per_tile              INTEGER NOT NULL, -- bytes of SRAM per tile
	bytes_per_ipu               INTEGER NOT NULL, -- bytes_per_tile * tiles_per_ipu
	total_memory                INTEGER NOT NULL, -- bytes_per_tile * num_tiles
	clock_frequency             INTEGER NOT NULL, -- tile clock, Hz
	num_worker_contexts         INTEGER NOT NULL, -- hardware worker threads per tile (6)
	exchange_bytes_per_cycle    INTEGER NOT NULL, -- internal exchange bandwidth per tile, bytes/cycle
	fp16_amp_flops_per_cycle    INTEGER NOT NULL, -- peak fp16 AMP flops per tile per cycle
	fp32_flops_per_cycle        INTEGER NOT NULL, -- peak fp32 flops per tile per cycle
	replication_factor          INTEGER NOT NULL, -- replicas (each on its own num_ipus IPUs)
	min_sync_delay              INTEGER NOT NULL, -- cycles: the smallest sync delay of any tile
	relative_sync_delay_by_tile BLOB NOT NULL     -- cycles above min_sync_delay, tile runs of
	                                              -- tiles_per_ipu entries (the same on every
	                                              -- IPU): a tile's sync delay is
	                                              -- min_sync_delay + this
);

-- optimizationInfo: the compiler's internal metrics, a map from name to
-- number whose keys may change between versions (as the guide says).
-- The IPU Model's compiler may write none.
CREATE TABLE optimization_info (
	key   TEXT PRIMARY KEY NOT NULL, -- metric name
	value REAL NOT NULL              -- its value (unit depends on the metric)
) WITHOUT ROWID;

-- The guide's "graph": exactly one row.
CREATE TABLE graph (
	id               INTEGER PRIMARY KEY CHECK (id = 0), -- always 0
	num_compute_sets INTEGER NOT NULL, -- compute sets in the graph (user and compiler)
	num_edges        INTEGER NOT NULL, -- vertex field connections
	num_vars         INTEGER NOT NULL, -- variables (user and compiler)
	num_vertices     INTEGER NOT NULL  -- vertices in all compute sets
);

-- ---------------------------------------------------------------------------
-- Vertex types, compute sets, exchanges
-- ---------------------------------------------------------------------------

-- The guide's "vertexTypes": the vertex types used by the graph,
-- including built-in ones (poplar_rt::...).
CREATE TABLE vertex_type (
	id          INTEGER PRIMARY KEY, -- index into vertexTypes
	name        INTEGER NOT NULL,    -- string.id: "popops::ScaledAdd2D<float,true>" ...
	state_bytes INTEGER NOT NULL,    -- bytes of vertex state per instance ("sizes")
	code_bytes  INTEGER NOT NULL,    -- bytes of code on each tile that runs the type
	instances   INTEGER NOT NULL,    -- vertices of this type in all compute sets
	flops       INTEGER NOT NULL     -- floating-point operations of all its vertices,
	                                 -- one execution of each compute set
);

-- The guide's "computeSets" with their cycle estimates. Per-tile cycles
-- are blobs (tile runs, num_tiles entries); their maximum and sum are
-- plain columns so that SQL can sort and add without decoding.
CREATE TABLE compute_set (
	id                    INTEGER PRIMARY KEY, -- index into computeSets
	name                  INTEGER NOT NULL,    -- string.id (names need not be unique)
	flops                 INTEGER NOT NULL,    -- floating-point operations per execution
	debug_context         INTEGER,             -- debug_context.id that made it, or NULL
	tiles                 INTEGER NOT NULL,    -- tiles with cycles > 0 (tiles it runs on)
	cycles                INTEGER NOT NULL,    -- cycles: max of cycles_by_tile (the time the
	                                           -- compute set takes, ignoring sync)
	cycles_sum            INTEGER NOT NULL,    -- cycles: sum of cycles_by_tile over tiles
	active_cycles         INTEGER NOT NULL,    -- cycles: max of active_cycles_by_tile
	active_cycles_sum     INTEGER NOT NULL,    -- cycles: sum of active_cycles_by_tile
	cycles_by_tile        BLOB NOT NULL,       -- cycles per tile, idle thread slots included
	                                           -- (cyclesByTile)
	active_cycles_by_tile BLOB NOT NULL        -- cycles per tile during which a vertex was
	                                           -- running (activeCyclesByTile)
);
-- "Slowest compute sets" is an index scan.
CREATE INDEX compute_set_by_cycles ON compute_set (cycles);

-- Vertices of each type in each compute set (vertexCounts / vertexTypes)
-- and their active cycles (activeCyclesByVertexType). Answers "cycles by
-- vertex type" and "which compute sets use this vertex type".
CREATE TABLE compute_set_vertex_type (
	compute_set   INTEGER NOT NULL, -- compute_set.id
	vertex_type   INTEGER NOT NULL, -- vertex_type.id
	vertex_count  INTEGER NOT NULL, -- vertices of the type in the compute set
	active_cycles INTEGER NOT NULL, -- cycles: active cycles of those vertices summed
	                                -- over tiles, one execution of the compute set
	PRIMARY KEY (compute_set, vertex_type)
) WITHOUT ROWID;
CREATE INDEX compute_set_vertex_type_by_type ON compute_set_vertex_type (vertex_type);

-- The guide's "exchanges" (internal), "externalExchanges" (IPU to IPU)
-- and "hostExchanges" (host to or from IPU) in one table. Blobs are tile
-- runs of num_tiles entries; the totals beside them are plain columns.
CREATE TABLE exchange (
	kind                   TEXT NOT NULL CHECK (kind IN ('internal', 'external', 'host')),
	id                     INTEGER NOT NULL, -- index into the kind's list (the guide's
	                                         -- exchange / externalExchange / hostExchange)
	name                   INTEGER NOT NULL, -- string.id
	tiles                  INTEGER NOT NULL, -- tiles that send, receive or spend cycles
	bytes_received         INTEGER NOT NULL, -- bytes: sum of bytes_received_by_tile
	bytes_sent             INTEGER NOT NULL, -- bytes: sum of bytes_sent_by_tile
	cycles                 INTEGER NOT NULL, -- cycles: max of cycles_by_tile
	cycles_sum             INTEGER NOT NULL, -- cycles: sum of cycles_by_tile
	bytes_received_by_tile BLOB NOT NULL,    -- bytes received per tile (bytesReceivedByTile)
	bytes_sent_by_tile     BLOB NOT NULL,    -- bytes sent per tile (bytesSentByTile)
	cycles_by_tile         BLOB NOT NULL,    -- cycles per tile (cyclesByTile; estimated
	                                         -- for external and host exchanges)
	PRIMARY KEY (kind, id)
);

-- ---------------------------------------------------------------------------
-- Programs (the guide's "programs", "controlPrograms", "functionPrograms")
-- ---------------------------------------------------------------------------

-- The flattened, lowered programs: what the user gave plus what the
-- compiler inserted (exchanges, syncs, consensus, calls). The type says
-- which of the other columns apply; the others are NULL.
CREATE TABLE program (
	id                            INTEGER PRIMARY KEY, -- index into programs
	type                          TEXT NOT NULL,       -- the guide's tag: "Sequence",
	                                                   -- "OnTileExecute", "DoExchange",
	                                                   -- "GlobalExchange", "StreamCopy",
	                                                   -- "Repeat", "RepeatWhileTrue",
	                                                   -- "RepeatWhileFalse",
	                                                   -- "SetLocalConsensusFromVar", "If",
	                                                   -- "IfElse", "Switch", "Sync", "Call",
	                                                   -- "WriteUndef"
	name                          INTEGER,             -- string.id, NULL when unnamed
	compute_set                   INTEGER,             -- OnTileExecute: compute_set.id
	exchange                      INTEGER,             -- DoExchange / GlobalExchange /
	                                                   -- StreamCopy: exchange.id within kind
	                                                   -- internal / external / host
	function                      INTEGER,             -- Call: function_program.position
	sync_type                     TEXT,                -- Sync: "Internal", "External", "Global"
	repeat_count                  INTEGER,             -- Repeat: iterations
	debug_context                 INTEGER,             -- debug_context.id that made it, or NULL
	-- memoryByInstruction (DoExchange / GlobalExchange / StreamCopy, else
	-- NULL): bytes of exchange code by instruction kind, summed over tiles.
	instr_delay                   INTEGER,             -- bytes: delay
	instr_exchange                INTEGER,             -- bytes: exchange
	instr_other                   INTEGER,             -- bytes: other
	instr_receive_address         INTEGER,             -- bytes: receiveAddress
	instr_receive_format          INTEGER,             -- bytes: receiveFormat
	instr_receive_mux             INTEGER,             -- bytes: receiveMux
	instr_send                    INTEGER,             -- bytes: send
	instr_send_with_put_address   INTEGER,             -- bytes: sendWithPutAddress
	instr_send_with_put_format    INTEGER,             -- bytes: sendWithPutFormat
	instr_send_with_put_mux       INTEGER,             -- bytes: sendWithPutMux
	instr_total                   INTEGER              -- bytes: total
);
CREATE INDEX program_by_compute_set ON program (compute_set) WHERE compute_set IS NOT NULL;

-- A program's sub-programs ("children"), in order.
CREATE TABLE program_child (
	parent   INTEGER NOT NULL, -- program.id
	position INTEGER NOT NULL, -- 0-based place among the parent's children
	child    INTEGER NOT NULL, -- program.id
	PRIMARY KEY (parent, position)
) WITHOUT ROWID;
-- Finds the parents of a program.
CREATE INDEX program_child_by_child ON program_child (child);

-- controlPrograms: the program run for each engine program index.
CREATE TABLE control_program (
	position INTEGER PRIMARY KEY, -- the engine program index (tsi_engine_run's index)
	program  INTEGER NOT NULL     -- program.id
);

-- functionPrograms: the body of each function (Call's function).
CREATE TABLE function_program (
	position INTEGER PRIMARY KEY, -- the function index
	program  INTEGER NOT NULL     -- program.id
);

-- ---------------------------------------------------------------------------
-- Memory (the guide's "memory")
-- ---------------------------------------------------------------------------

-- byTile: one row per tile (num_tiles rows). "Excluding gaps" counts
-- bytes of data; "including gaps" counts each region as laid out,
-- alignment padding included. total_including_gaps is what the tile
-- really needs: above target.bytes_per_tile it does not fit.
CREATE TABLE tile_memory (
	tile                           INTEGER PRIMARY KEY, -- tile number
	ipu                            INTEGER NOT NULL,    -- tile / tiles_per_ipu
	interleaved                    INTEGER NOT NULL,    -- bytes in the interleaved region
	interleaved_including_gaps     INTEGER NOT NULL,    -- bytes, with gaps
	non_interleaved                INTEGER NOT NULL,    -- bytes in the non-interleaved region
	non_interleaved_including_gaps INTEGER NOT NULL,    -- bytes, with gaps
	overflowed                     INTEGER NOT NULL,    -- bytes that did not fit the tile
	overflowed_including_gaps      INTEGER NOT NULL,    -- bytes, with gaps
	total                          INTEGER NOT NULL,    -- bytes: sum of the three regions
	total_including_gaps           INTEGER NOT NULL     -- bytes: highest address used + 1
);
-- "Largest tiles" is an index scan.
CREATE INDEX tile_memory_by_total_including_gaps ON tile_memory (total_including_gaps);

-- byCategory: bytes by what they are for (the guide's categories:
-- variable, constant, controlCode, vertexCode, message, stack ...), by
-- region, overlapped or not. One row for every category x region x
-- overlapped (rows of zeros included), so the table has 150 rows.
-- Overlapped bytes share addresses with other overlapped bytes (their
-- lifetimes are disjoint), so their sum exceeds what they occupy.
CREATE TABLE memory_category (
	category   TEXT NOT NULL,    -- the guide's camelCase name
	region     TEXT NOT NULL CHECK (region IN ('interleaved', 'nonInterleaved', 'overflowed')),
	overlapped INTEGER NOT NULL CHECK (overlapped IN (0, 1)), -- 1: the overlapped column
	total      INTEGER NOT NULL, -- bytes on all tiles
	tiles      INTEGER NOT NULL, -- tiles with bytes > 0
	by_tile    BLOB NOT NULL,    -- bytes per tile (tile runs, num_tiles entries)
	PRIMARY KEY (category, region, overlapped)
);

-- byComputeSet: vertex data by compute set (one row per compute set,
-- including those without vertices). Each *_by_tile column is tile runs
-- of num_tiles entries, the column without the suffix its sum. Code may
-- be shared by compute sets, so code_bytes and total_bytes do not add up
-- across rows.
CREATE TABLE memory_by_compute_set (
	compute_set               INTEGER PRIMARY KEY, -- compute_set.id
	code_bytes                INTEGER NOT NULL,    -- bytes of vertex code
	copy_ptr_bytes            INTEGER NOT NULL,    -- bytes of copy pointers
	descriptor_bytes          INTEGER NOT NULL,    -- bytes of descriptors
	edge_ptr_bytes            INTEGER NOT NULL,    -- bytes of edge pointers
	padding_bytes             INTEGER NOT NULL,    -- bytes of padding
	vertex_data_bytes         INTEGER NOT NULL,    -- bytes of vertex state
	total_bytes               INTEGER NOT NULL,    -- bytes: the six above
	code_bytes_by_tile        BLOB NOT NULL,       -- bytes per tile (codeBytes)
	copy_ptr_bytes_by_tile    BLOB NOT NULL,       -- bytes per tile (copyPtrBytes)
	descriptor_bytes_by_tile  BLOB NOT NULL,       -- bytes per tile (descriptorBytes)
	edge_ptr_bytes_by_tile    BLOB NOT NULL,       -- bytes per tile (edgePtrBytes)
	padding_bytes_by_tile     BLOB NOT NULL,       -- bytes per tile (paddingBytes)
	vertex_data_bytes_by_tile BLOB NOT NULL,       -- bytes per tile (vertexDataBytes)
	total_bytes_by_tile       BLOB NOT NULL        -- bytes per tile (totalBytes)
);

-- byVertexType: the same by vertex type (one row per vertex type).
CREATE TABLE memory_by_vertex_type (
	vertex_type               INTEGER PRIMARY KEY, -- vertex_type.id
	code_bytes                INTEGER NOT NULL,    -- bytes of vertex code
	copy_ptr_bytes            INTEGER NOT NULL,    -- bytes of copy pointers
	descriptor_bytes          INTEGER NOT NULL,    -- bytes of descriptors
	edge_ptr_bytes            INTEGER NOT NULL,    -- bytes of edge pointers
	padding_bytes             INTEGER NOT NULL,    -- bytes of padding
	vertex_data_bytes         INTEGER NOT NULL,    -- bytes of vertex state
	total_bytes               INTEGER NOT NULL,    -- bytes: the six above
	code_bytes_by_tile        BLOB NOT NULL,       -- bytes per tile (codeBytes)
	copy_ptr_bytes_by_tile    BLOB NOT NULL,       -- bytes per tile (copyPtrBytes)
	descriptor_bytes_by_tile  BLOB NOT NULL,       -- bytes per tile (descriptorBytes)
	edge_ptr_bytes_by_tile    BLOB NOT NULL,       -- bytes per tile (edgePtrBytes)
	padding_bytes_by_tile     BLOB NOT NULL,       -- bytes per tile (paddingBytes)
	vertex_data_bytes_by_tile BLOB NOT NULL,       -- bytes per tile (vertexDataBytes)
	total_bytes_by_tile       BLOB NOT NULL        -- bytes per tile (totalBytes)
);

-- Variables with their storage and liveness. Liveness is an interval of
-- liveness steps (live_from .. live_to, both inclusive), not a row per
-- step: the variables live at step s are
--   always_live = 1 OR (live_from <= s AND live_to >= s).
--
-- Which variables are listed (meta lowered_vars): user variables and
-- constants (category variable / constant) always. "Lowered" variables,
-- the compiler's own allocations (exchange message buffers in message /
-- hostMessage / globalMessage, and one always-live entry per other
-- category with bytes: controlCode, stack, vertexCode ... named after the
-- category), are listed only with autoReport.outputLoweredVars. Without
-- it they are left out of this table only: their bytes stay in
-- tile_memory, memory_category and liveness_step. Ids are the compiler's
-- and keep their gaps, so debug.cbor's variable ids still match.
CREATE TABLE variable (
	id            INTEGER PRIMARY KEY, -- variable index in the graph profile
	name          INTEGER NOT NULL,    -- string.id
	category      TEXT NOT NULL,       -- memory category (as memory_category.category)
	type          TEXT NOT NULL,       -- element type: "float", "half", "int" ...
	bytes         INTEGER NOT NULL,    -- bytes on all tiles of one replica
	shape         TEXT NOT NULL,       -- dimensions as "[10,20]" ("[]" for a scalar)
	tiles         INTEGER NOT NULL,    -- tiles holding part of it
	bytes_by_tile BLOB NOT NULL,       -- bytes per tile (tile runs, num_tiles entries)
	always_live   INTEGER NOT NULL CHECK (always_live IN (0, 1)),
	                                   -- 1: live throughout (constants, host-visible ...)
	live_from     INTEGER,             -- first liveness_step.id where it is live, or NULL
	                                   -- (always live, or never live)
	live_to       INTEGER,             -- last such liveness_step.id (inclusive), or NULL
	debug_context INTEGER              -- debug_context.id that made it, or NULL
);
-- "Largest variables" is an index scan.
CREATE INDEX variable_by_bytes ON variable (bytes);
-- "Variables live at step s" scans live_from <= s.
CREATE INDEX variable_by_liveness ON variable (live_from, live_to) WHERE live_from IS NOT NULL;

-- Liveness: the static program order (every lowered leaf program in
-- execution order, loop bodies once, both branches of an If, a called
-- function's body at each call site) with the bytes of variables that
-- are not always live at each step. parent/depth build the call-stack
-- tree. Add meta always_live_bytes for the total live at a step.
CREATE TABLE liveness_step (
	id                    INTEGER PRIMARY KEY, -- step index (live_from / live_to refer here)
	program               INTEGER NOT NULL,    -- program.id
	parent                INTEGER,             -- liveness_step.id of the enclosing Sequence,
	                                           -- Repeat, If, Call ..., NULL at top level
	depth                 INTEGER NOT NULL,    -- nesting depth, 0 at top level
	not_always_live_bytes INTEGER NOT NULL     -- bytes live at this step that are not
	                                           -- always live (all tiles of one replica)
);

-- Tiles that do not fit: total_including_gaps above bytes_per_tile.
CREATE TABLE oom_tile (
	tile INTEGER PRIMARY KEY -- tile_memory.tile
);

-- ---------------------------------------------------------------------------
-- Debug contexts (the same ids as debug.cbor)
-- ---------------------------------------------------------------------------

-- One debug context (Poplar's DebugContext): each operation of the ops
-- library opens one around what it builds, and a model may open its own.
-- Ids are 1-based, a parent's id is lower than its child's.
CREATE TABLE debug_context (
	id     INTEGER PRIMARY KEY, -- as in debug.cbor and the debug_context columns
	parent INTEGER,             -- debug_context.id, NULL at top level
	name   INTEGER NOT NULL,    -- string.id: the debug name ("layer1/fc", "Add" ...)
	layer  INTEGER NOT NULL,    -- string.id: "popops", "poplin", "popnn", "poprand",
	                            -- "gcl", "user" ...
	api    INTEGER              -- string.id of the function that opened it
	                            -- ("popops::add"), or NULL
);

-- ---------------------------------------------------------------------------
-- Execution profile: runs, program trace, simulated steps
-- ---------------------------------------------------------------------------

-- One run of an engine program that was kept (Poplar keeps the first
-- runs; executionProfileProgramRunCount). Runs are numbered in order.
-- The tileCycles columns count cycles on every tile separately: two
-- tiles computing 10 cycles in parallel are 20 compute cycles.
CREATE TABLE run (
	id                    INTEGER PRIMARY KEY, -- run number, 0-based
	program               INTEGER NOT NULL,    -- control_program.position that ran
	cycles                INTEGER NOT NULL,    -- cycles: the run's length
	num_steps             INTEGER NOT NULL,    -- rows in step for this run
	trace_length          INTEGER NOT NULL,    -- rows in program_trace for this run
	active_compute_cycles INTEGER NOT NULL,    -- tileCycles.activeCompute
	compute_cycles        INTEGER NOT NULL,    -- tileCycles.compute
	do_exchange_cycles    INTEGER NOT NULL,    -- tileCycles.doExchange
	global_exchange_cycles INTEGER NOT NULL,   -- tileCycles.globalExchange
	stream_copy_cycles    INTEGER NOT NULL,    -- tileCycles.streamCopy
	sync_cycles           INTEGER NOT NULL,    -- tileCycles.sync
	copy_shared_structure_cycles INTEGER NOT NULL -- tileCycles.copySharedStructure
);

-- programTrace: the lowered programs run, in order.
CREATE TABLE program_trace (
	run      INTEGER NOT NULL, -- run.id
	position INTEGER NOT NULL, -- 0-based place in the run's trace
	program  INTEGER NOT NULL, -- program.id
	PRIMARY KEY (run, position)
) WITHOUT ROWID;

-- simulation.steps: the simulated BSP steps of each run, on the run's
-- cycle axis. As the guide says, the simulation is derived from the graph
-- profile and the program trace, so per-tile data is not repeated here:
-- the cycles of a step on each tile are compute_set.cycles_by_tile of its
-- compute set (OnTileExecute) or exchange.cycles_by_tile of its exchange
-- (DoExchange: kind internal, GlobalExchange: external, StreamCopy:
-- host), and its bytes per tile those exchange's blobs.
CREATE TABLE step (
	run                 INTEGER NOT NULL, -- run.id
	id                  INTEGER NOT NULL, -- 0-based step index within the run
	type                TEXT NOT NULL,    -- "OnTileExecute", "DoExchange", "GlobalExchange",
	                                      -- "StreamCopy", "Sync", "CopySharedStructure"
	program             INTEGER NOT NULL, -- program.id of the lowered program
	compute_set         INTEGER,          -- OnTileExecute: compute_set.id, else NULL
	exchange            INTEGER,          -- exchange steps: exchange.id within the kind
	                                      -- the type implies, else NULL
	sync_type           TEXT,             -- Sync: "Internal", "External" or "Global"
	cycles_from         INTEGER NOT NULL, -- cycles: first cycle any tile runs the step
	cycles_to           INTEGER NOT NULL, -- cycles: last such cycle
	cycles              INTEGER NOT NULL, -- cycles taken by the longest-running tile
	cycles_overlapped   INTEGER NOT NULL, -- cycles overlapped with previous steps
	active_tiles        INTEGER NOT NULL, -- tiles computing (or exchanging)
	-- The balances are fractions 0..1, NULL when undefined.
	tile_balance        REAL,             -- tile cycles / (cycles * num_tiles)
	active_tile_balance REAL,             -- the same over active tiles only
	thread_balance      REAL,             -- OnTileExecute: use of the worker threads
	total_data          INTEGER NOT NULL, -- exchange steps: bytes moved (else 0)
	data_balance        REAL,             -- exchange steps: tile_balance for bytes
	PRIMARY KEY (run, id)
) WITHOUT ROWID;
-- "Longest steps" is an index scan.
CREATE INDEX step_by_cycles ON step (cycles);
-- Steps of a compute set (which runs and when).
CREATE INDEX step_by_compute_set ON step (compute_set) WHERE compute_set IS NOT NULL;

-- ---------------------------------------------------------------------------
-- Convenience views (names joined in). Readers do not depend on them.
-- `tilescope sql` (tsr_report_query) offers them by name, made as TEMP
-- views from this text as compiled into Tilescope, never from the file's
-- copy, whose views reportlib does not run; a file whose stored views
-- differ from these is refused when opened. Changing one changes the
-- schema version.
-- ---------------------------------------------------------------------------

CREATE VIEW v_step AS
SELECT t.run, t.id, t.type, t.program, p.text AS program_name,
       t.compute_set, c.text AS compute_set_name, t.exchange, x.text AS exchange_name,
       t.sync_type, t.cycles_from, t.cycles_to, t.cycles, t.cycles_overlapped,
       t.active_tiles, t.tile_balance, t.active_tile_balance, t.thread_balance,
       t.total_data, t.data_balance
  FROM step t
  JOIN program pr ON pr.id = t.program
  LEFT JOIN string p ON p.id = pr.name
  LEFT JOIN compute_set cs ON cs.id = t.compute_set
  LEFT JOIN string c ON c.id = cs.name
  LEFT JOIN exchange ex ON ex.id = t.exchange
        AND ex.kind = CASE t.type WHEN 'DoExchange' THEN 'internal'
                                  WHEN 'GlobalExchange' THEN 'external'
                                  WHEN 'StreamCopy' THEN 'host' END
  LEFT JOIN string x ON x.id = ex.name;

CREATE VIEW v_compute_set AS
SELECT cs.id, s.text AS name, cs.tiles, cs.cycles, cs.cycles_sum, cs.active_cycles,
       cs.active_cycles_sum, cs.flops, cs.debug_context
  FROM compute_set cs JOIN string s ON s.id = cs.name;

CREATE VIEW v_variable AS
SELECT v.id, s.text AS name, v.category, v.type, v.bytes, v.shape, v.tiles,
       v.always_live, v.live_from, v.live_to, v.debug_context
  FROM variable v JOIN string s ON s.id = v.name;

CREATE VIEW v_program AS
SELECT p.id, p.type, s.text AS name, p.compute_set, p.exchange, p.function,
       p.sync_type, p.repeat_count, p.debug_context, p.instr_total
  FROM program p LEFT JOIN string s ON s.id = p.name;
