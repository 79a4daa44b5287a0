-- The tuning store schema version 4 (no GPU facts: l2_bytes, shared_per_sm,
-- bandwidth_gbs), with one row. TestUpgrade4 opens it and checks the upgrade.

CREATE TABLE IF NOT EXISTS measurements (
	id            INTEGER PRIMARY KEY,
	graph         TEXT    NOT NULL,
	graph_name    TEXT    NOT NULL DEFAULT '',
	features      TEXT    NOT NULL DEFAULT '{}',
	vertices      INTEGER NOT NULL DEFAULT 0,
	edges         INTEGER NOT NULL DEFAULT 0,
	degree_max    INTEGER NOT NULL DEFAULT 0,
	gpu           TEXT    NOT NULL,
	gpu_name      TEXT    NOT NULL DEFAULT '',
	cc            TEXT    NOT NULL DEFAULT '',
	sms           INTEGER NOT NULL DEFAULT 0,
	driver        INTEGER NOT NULL DEFAULT 0,
	nvrtc         TEXT    NOT NULL DEFAULT '',
	version       TEXT    NOT NULL DEFAULT '',
	code          TEXT    NOT NULL DEFAULT '',
	plan          TEXT    NOT NULL,
	spec          TEXT    NOT NULL DEFAULT '',
	space         TEXT    NOT NULL DEFAULT '',
	point         TEXT    NOT NULL DEFAULT '',
	source        TEXT    NOT NULL DEFAULT '',
	status        TEXT    NOT NULL,
	reason        TEXT    NOT NULL DEFAULT '',
	triangles     INTEGER NOT NULL DEFAULT 0,
	reference     INTEGER NOT NULL DEFAULT 0,
	warmup        INTEGER NOT NULL DEFAULT 0,
	runs          INTEGER NOT NULL DEFAULT 0,
	flushed       INTEGER NOT NULL DEFAULT 0,
	samples_ms    TEXT,
	median_ms     REAL    NOT NULL DEFAULT 0,
	min_ms        REAL    NOT NULL DEFAULT 0,
	max_ms        REAL    NOT NULL DEFAULT 0,
	kernel_ms     REAL    NOT NULL DEFAULT 0,
	compile_ms    REAL    NOT NULL DEFAULT 0,
	prepare_ms    REAL    NOT NULL DEFAULT 0,
	clock_sm_mhz  INTEGER NOT NULL DEFAULT 0,
	clock_mem_mhz INTEGER NOT NULL DEFAULT 0,
	temperature_c INTEGER NOT NULL DEFAULT 0,
	time          TEXT    NOT NULL DEFAULT ''
);

-- (graph, gpu) leads, as asked; status and median_ms after it let Best and
-- the best view read the fastest ok row straight from the index.
CREATE INDEX IF NOT EXISTS measurements_graph_gpu ON measurements (graph, gpu, status, median_ms);
CREATE INDEX IF NOT EXISTS measurements_space ON measurements (space);
-- The key then id: finds a key's newest row (GetCode, latestRows).
CREATE INDEX IF NOT EXISTS measurements_key ON measurements (graph, gpu, version, plan, code, flushed, id);

CREATE TABLE IF NOT EXISTS leases (
	graph   TEXT    NOT NULL,
	gpu     TEXT    NOT NULL,
	version TEXT    NOT NULL,
	plan    TEXT    NOT NULL,
	code    TEXT    NOT NULL,
	owner   TEXT    NOT NULL,
	expires INTEGER NOT NULL,
	PRIMARY KEY (graph, gpu, version, plan, code)
);

-- best: per (graph, gpu), among the newest rows of each key, the ok row
-- Store.Best returns without its code check: unflushed rows before flushed
-- ones (not rivals), then the most passes, then the smallest median_ms;
-- ties go to the smaller plan name, then version, so the answer is stable.
CREATE VIEW IF NOT EXISTS best AS
	SELECT graph, graph_name, features, gpu, gpu_name, cc, sms, driver, nvrtc,
	version, code, plan, spec, space, point, source, status, reason, triangles, reference,
	warmup, runs, samples_ms, median_ms, min_ms, max_ms, kernel_ms, compile_ms, prepare_ms,
	clock_sm_mhz, clock_mem_mhz, temperature_c, time, flushed, vertices, edges, degree_max FROM (
		SELECT *, row_number() OVER (
			PARTITION BY graph, gpu ORDER BY flushed, runs DESC, median_ms, plan, version
		) AS best_rank
		FROM (SELECT * FROM measurements AS m WHERE NOT EXISTS (
		SELECT 1 FROM measurements AS n WHERE n.graph = m.graph AND n.gpu = m.gpu
		AND n.version = m.version AND n.plan = m.plan AND n.code = m.code
		AND n.flushed = m.flushed AND n.id > m.id)) WHERE status = 'ok'
	) WHERE best_rank = 1;

INSERT INTO measurements (graph, graph_name, gpu, plan, status, runs, median_ms, time)
	VALUES ('g', 'old', 'h100', 'a', 'ok', 10, 1.5, '2026-11-26T00:00:00Z');
PRAGMA user_version = 4;
