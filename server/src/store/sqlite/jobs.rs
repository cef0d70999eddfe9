//! The hidden-test queue's statements: jobs, claiming a turn, committing its results, retries, cancelling.

use std::collections::BTreeMap;
use std::time::Duration;

use wheelwright_core::hidden_tests::TestResults;
use wheelwright_core::hidden_tests::{JobProgress, Verdict};

use super::{NOW, Store, WriteTx};
use crate::store::{Claim, HiddenTestRow, Queued, Rescore, Scores, TurnTests};

impl Store {
    /// Frees every job from the workers of a previous process and queues again the jobs
    /// they left running; how many were running.
    pub(crate) async fn recover_jobs(&self) -> anyhow::Result<u64> {
        let mut tx = self.write_tx().await?;
        // No worker of a previous process holds a turn any more.
        sqlx::query("UPDATE test_job SET busy = 0 WHERE busy = 1")
            .execute(&mut *tx)
            .await?;
        let requeued = sqlx::query("UPDATE test_job SET state = 'queued' WHERE state = 'running'")
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(requeued)
    }

    /// How many turns run `run` has, if there is such a run.
    pub(crate) async fn run_turn_total(&self, run: i64) -> anyhow::Result<Option<i64>> {
        Ok(sqlx::query_scalar("SELECT turns FROM run WHERE id = ?")
            .bind(run)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// Queues the hidden tests of `run` (`turns` turns, `budget_s` seconds) for
    /// `submitter`: a new job, or its failed or cancelled job again; refused when the run's
    /// job is queued, running or done, or when `submitter` has `limit` jobs queued or
    /// running already. One immediate transaction, so two requests at once cannot both
    /// pass the limit.
    pub(crate) async fn queue_job(
        &self,
        run: i64,
        turns: i64,
        budget_s: f64,
        submitter: &str,
        limit: Option<i64>,
    ) -> anyhow::Result<Queued> {
        let mut tx = self.write_tx().await?;
        let existing: Option<(i64, String)> =
            sqlx::query_as("SELECT id, state FROM test_job WHERE run_id = ?")
                .bind(run)
                .fetch_optional(&mut *tx)
                .await?;
        if let Some((job, state)) = &existing
            && !matches!(state.as_str(), "failed" | "cancelled")
        {
            return Ok(Queued::Exists(*job));
        }
        if let Some(limit) = limit {
            let active: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM test_job
                 WHERE submitter = ? AND state IN ('queued', 'running')",
            )
            .bind(submitter)
            .fetch_one(&mut *tx)
            .await?;
            if active >= limit {
                return Ok(Queued::Full(active));
            }
        }
        let job = match existing {
            Some((job, _)) => {
                sqlx::query(
                    "UPDATE test_job SET state = 'queued', attempts = 0, error = NULL,
                         retry_at = NULL, finished_at = NULL, submitter = ?
                     WHERE id = ?",
                )
                .bind(submitter)
                .bind(job)
                .execute(&mut *tx)
                .await?;
                job
            }
            None => {
                sqlx::query_scalar(&format!(
                    "INSERT INTO test_job (run_id, state, turns_total, budget_s, submitter,
                         created_at)
                     VALUES (?, 'queued', ?, ?, ?, {NOW}) RETURNING id"
                ))
                .bind(run)
                .bind(turns)
                .bind(budget_s)
                .bind(submitter)
                .fetch_one(&mut *tx)
                .await?
            }
        };
        tx.commit().await?;
        Ok(Queued::Job(job))
    }

    /// The job of run `run`, if it has one.
    pub(crate) async fn job_of_run(&self, run: i64) -> anyhow::Result<Option<i64>> {
        Ok(
            sqlx::query_scalar("SELECT id FROM test_job WHERE run_id = ?")
                .bind(run)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    /// Cancels `job` if it is queued or running; whether it was.
    pub(crate) async fn cancel_job(&self, job: i64) -> anyhow::Result<bool> {
        let cancelled = sqlx::query(&format!(
            "UPDATE test_job SET state = 'cancelled', finished_at = {NOW},
                 error = 'cancelled by a maintainer'
             WHERE id = ? AND state IN ('queued', 'running')"
        ))
        .bind(job)
        .execute(&self.pool)
        .await?;
        self.wrote();
        Ok(cancelled.rows_affected() > 0)
    }

    /// The state of `job` (`queued`, `running`, `done`, `failed`, `cancelled`), if it exists.
    pub(crate) async fn job_state(&self, job: i64) -> anyhow::Result<Option<String>> {
        Ok(
            sqlx::query_scalar("SELECT state FROM test_job WHERE id = ?")
                .bind(job)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    /// A job's progress as stored; `None` for an unknown job.
    pub(crate) async fn job_progress(&self, job: i64) -> anyhow::Result<Option<JobProgress>> {
        let row: Option<(i64, String, i64, Option<String>)> =
            sqlx::query_as("SELECT run_id, state, turns_total, error FROM test_job WHERE id = ?")
                .bind(job)
                .fetch_optional(&self.pool)
                .await?;
        let Some((run, state, turns_total, error)) = row else {
            return Ok(None);
        };
        let (turns_done, passed, total): (i64, Option<i64>, Option<i64>) = sqlx::query_as(
            "SELECT count(*), sum(passed), sum(total) FROM test_turn WHERE job_id = ?",
        )
        .bind(job)
        .fetch_one(&self.pool)
        .await?;
        let n = |v: i64| u32::try_from(v).unwrap_or(0);
        Ok(Some(JobProgress {
            job,
            run,
            state,
            turns_done: n(turns_done),
            turns_total: n(turns_total),
            tests_passed: n(passed.unwrap_or(0)),
            tests_total: n(total.unwrap_or(0)),
            message: error,
        }))
    }

    /// Takes one turn of a ready job, if any, with a single statement that also marks the
    /// job busy (two workers never take the same job). Submitters take turns: the one
    /// holding the fewest workers now, then the one served least recently (never served
    /// first); within a submitter, its job served least recently. So one submitter's k runs
    /// wait their turn behind everyone else's instead of taking k turns in every round.
    pub(crate) async fn claim_turn(&self) -> anyhow::Result<Option<Claim>> {
        let mut tx = self.write_tx().await?;
        let claim = sqlx::query_as(&format!(
            "UPDATE test_job SET state = 'running', busy = 1, last_served_at = {NOW},
                 served_seq = (SELECT coalesce(max(served_seq), 0) + 1 FROM test_job),
                 started_at = coalesce(started_at, {NOW})
             WHERE id = (
                 WITH waiting AS (
                     SELECT DISTINCT submitter FROM test_job
                     WHERE state IN ('queued', 'running')),
                 submitters AS (
                     SELECT submitter, sum(busy) AS busy, max(served_seq) AS served
                     FROM test_job JOIN waiting USING (submitter)
                     GROUP BY submitter)
                 SELECT job.id FROM test_job AS job JOIN submitters USING (submitter)
                 WHERE job.state IN ('queued', 'running') AND job.busy = 0
                     AND (job.retry_at IS NULL OR job.retry_at <= {NOW})
                 ORDER BY submitters.busy, submitters.served IS NOT NULL, submitters.served,
                     job.served_seq IS NOT NULL, job.served_seq, job.id
                 LIMIT 1)
             RETURNING id, run_id, spent_s, budget_s, attempts"
        ))
        .fetch_optional(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(claim)
    }

    /// Lets other workers take `job` again.
    pub(crate) async fn release_job(&self, job: i64) -> anyhow::Result<()> {
        sqlx::query("UPDATE test_job SET busy = 0 WHERE id = ?")
            .bind(job)
            .execute(&self.pool)
            .await?;
        self.wrote();
        Ok(())
    }

    /// Releases `job` after its failed attempt `attempts` (said by `error`) and, if it is
    /// still running, either fails it (`retry_in` is `None`) or has it claimed again once
    /// `retry_in` has passed: one transaction, so the job is never left held by nobody.
    pub(crate) async fn record_failed_attempt(
        &self,
        job: i64,
        attempts: i64,
        error: &str,
        retry_in: Option<Duration>,
    ) -> anyhow::Result<()> {
        let mut tx = self.write_tx().await?;
        sqlx::query("UPDATE test_job SET busy = 0 WHERE id = ?")
            .bind(job)
            .execute(&mut *tx)
            .await?;
        if let Some(delay) = retry_in {
            sqlx::query(
                "UPDATE test_job SET attempts = ?, error = ?,
                     retry_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?)
                 WHERE id = ? AND state = 'running'",
            )
            .bind(attempts)
            .bind(error)
            .bind(format!("+{:.3} seconds", delay.as_secs_f64()))
            .bind(job)
            .execute(&mut *tx)
            .await?;
        } else {
            sqlx::query(&format!(
                "UPDATE test_job SET state = 'failed', attempts = ?, error = ?,
                     finished_at = {NOW}
                 WHERE id = ? AND state = 'running'"
            ))
            .bind(attempts)
            .bind(error)
            .bind(job)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// The benchmark and dataset (name, version) of run `run`.
    pub(crate) async fn run_dataset(&self, run: i64) -> anyhow::Result<(String, String, String)> {
        Ok(
            sqlx::query_as("SELECT benchmark, dataset_name, dataset_version FROM run WHERE id = ?")
                .bind(run)
                .fetch_one(&self.pool)
                .await?,
        )
    }

    /// The (chain, turn) of every turn of `job` committed so far.
    pub(crate) async fn committed_turns(&self, job: i64) -> anyhow::Result<Vec<(String, i64)>> {
        Ok(
            sqlx::query_as("SELECT chain, turn FROM test_turn WHERE job_id = ?")
                .bind(job)
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// The chains (ReCUBE: instance ids) of run `run` with a committed test result.
    pub(crate) async fn tested_slots(
        &self,
        run: i64,
    ) -> anyhow::Result<std::collections::BTreeSet<String>> {
        let rows: Vec<String> = sqlx::query_scalar(
            "SELECT DISTINCT t.chain FROM test_turn AS t JOIN test_job AS j ON j.id = t.job_id
             WHERE j.run_id = ?",
        )
        .bind(run)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().collect())
    }

    /// How many turns of `job` are committed.
    pub(crate) async fn committed_turn_count(&self, job: i64) -> anyhow::Result<i64> {
        Ok(
            sqlx::query_scalar("SELECT count(*) FROM test_turn WHERE job_id = ?")
                .bind(job)
                .fetch_one(&self.pool)
                .await?,
        )
    }

    /// The test results of the turns of `job` committed so far, by (chain, turn).
    pub(crate) async fn test_results(
        &self,
        job: i64,
    ) -> anyhow::Result<BTreeMap<(String, usize), TestResults>> {
        let rows: Vec<(String, i64, i64, i64)> =
            sqlx::query_as("SELECT chain, turn, passed, total FROM test_turn WHERE job_id = ?")
                .bind(job)
                .fetch_all(&self.pool)
                .await?;
        let mut tests = BTreeMap::new();
        for (chain, turn, passed, total) in rows {
            tests.insert(
                (chain, usize::try_from(turn)?),
                TestResults {
                    passed: u32::try_from(passed)?,
                    total: u32::try_from(total)?,
                },
            );
        }
        Ok(tests)
    }

    /// Commits one turn's results and the time it spent, and releases the job, with what
    /// `rescore` says in the same transaction: the slot's new score, or (the last turn) the
    /// re-scored run and the job's end, unless the job was cancelled meanwhile. Whether the
    /// job is done.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn commit_turn(
        &self,
        job: i64,
        run: i64,
        chain: &str,
        turn: usize,
        verdict: &Verdict,
        elapsed: Duration,
        rescore: Rescore<'_>,
    ) -> anyhow::Result<bool> {
        let turn = i64::try_from(turn)?;
        let mut tx = self.write_tx().await?;
        let passed = verdict.results().passed;
        sqlx::query(
            "INSERT INTO test_turn (job_id, chain, turn, passed, total, tampered, duration_s)
             VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(job)
        .bind(chain)
        .bind(turn)
        .bind(i64::from(passed))
        .bind(i64::from(verdict.total))
        .bind(&verdict.tampered)
        .bind(elapsed.as_secs_f64())
        .execute(&mut *tx)
        .await?;
        for test in &verdict.tests {
            sqlx::query(
                "INSERT INTO test_result (job_id, chain, turn, module, name, class, outcome,
                     duration_s, excerpt)
                 VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?)",
            )
            .bind(job)
            .bind(chain)
            .bind(turn)
            .bind(&test.module)
            .bind(&test.name)
            .bind(
                serde_json::to_value(test.outcome)?
                    .as_str()
                    .unwrap_or("failed"),
            )
            .bind(test.duration_s)
            .bind(&test.excerpt)
            .execute(&mut *tx)
            .await?;
        }
        let state: String = sqlx::query_scalar(
            "UPDATE test_job SET busy = 0, attempts = 0, error = NULL, retry_at = NULL,
                 spent_s = spent_s + ?
             WHERE id = ? RETURNING state",
        )
        .bind(elapsed.as_secs_f64())
        .bind(job)
        .fetch_one(&mut *tx)
        .await?;
        let finished = match rescore {
            Rescore::Finish(report) if state == "running" => {
                Self::finalise(&mut tx, job, run, report).await?;
                true
            }
            Rescore::Slot(score) => {
                Self::write_slot_score(&mut tx, run, &score).await?;
                false
            }
            Rescore::Finish(_) | Rescore::Nothing => false,
        };
        tx.commit().await?;
        Ok(finished)
    }

    /// Stores run `run` re-scored with its test results and marks `job` done, in one
    /// transaction (for a job whose last turn was committed but not finalised).
    pub(crate) async fn finish_job(
        &self,
        job: i64,
        run: i64,
        report: &Scores,
    ) -> anyhow::Result<()> {
        let mut tx = self.write_tx().await?;
        Self::finalise(&mut tx, job, run, report).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Stores the run re-scored with its test results and marks the job done, inside `tx`.
    async fn finalise(tx: &mut WriteTx, job: i64, run: i64, report: &Scores) -> anyhow::Result<()> {
        Self::write_rescore(tx, run, report).await?;
        sqlx::query(&format!(
            "UPDATE test_job SET state = 'done', busy = 0, error = NULL, finished_at = {NOW}
             WHERE id = ?"
        ))
        .bind(job)
        .execute(&mut **tx)
        .await?;
        Ok(())
    }

    /// The tested turns of `job` in the order they were committed.
    pub(crate) async fn job_turns(&self, job: i64) -> anyhow::Result<Vec<TurnTests>> {
        let rows: Vec<(String, i64, i64, i64, Option<String>, f64)> = sqlx::query_as(
            "SELECT chain, turn, passed, total, tampered, duration_s FROM test_turn
             WHERE job_id = ? ORDER BY rowid",
        )
        .bind(job)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(
                |(chain, turn, passed, total, tampered, duration_s)| TurnTests {
                    chain,
                    turn,
                    passed,
                    total,
                    tampered,
                    duration_s,
                },
            )
            .collect())
    }

    /// Every test outcome of `job` in the order they were committed.
    pub(crate) async fn job_tests(&self, job: i64) -> anyhow::Result<Vec<HiddenTestRow>> {
        let rows: Vec<(String, i64, String, String, String, f64)> = sqlx::query_as(
            "SELECT chain, turn, module, name, outcome, duration_s FROM test_result
             WHERE job_id = ? ORDER BY rowid",
        )
        .bind(job)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(
                |(chain, turn, module, name, outcome, duration_s)| HiddenTestRow {
                    chain,
                    turn,
                    module,
                    name,
                    outcome,
                    duration_s,
                },
            )
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Queues one job per entry of `submitters` (each on a run of its own) and lets one
    /// worker claim `claims` turns, giving each turn back (`release`) or holding it, as a
    /// second worker would; the jobs claimed, as indexes into `submitters`.
    async fn claims(submitters: &[&str], claims: usize, release: bool) -> Vec<usize> {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).await.unwrap();
        let mut jobs = Vec::new();
        for (i, submitter) in submitters.iter().enumerate() {
            let run: i64 = sqlx::query_scalar(
                "INSERT INTO run (origin, benchmark, dataset_name, dataset_version,
                     dataset_sha256, bundle_sha256, model, harness, memory, run_date,
                     scorer_version, grammar_version, chains, turns, overall, series,
                     diagnostics, created_at)
                 VALUES ('verified', 'reporeuse', 'd', '1', '', ?, 'm', 'h', 'none',
                     '2026-12-06', '1', '1', 1, 1000, '{}', '{}', '[]', '')
                 RETURNING id",
            )
            .bind(format!("bundle {i}"))
            .fetch_one(&store.pool)
            .await
            .unwrap();
            let queued = store.queue_job(run, 1000, 1e9, submitter, None).await;
            let Ok(Queued::Job(job)) = queued else {
                panic!("not queued: {queued:?}");
            };
            jobs.push(job);
        }
        let mut order = Vec::new();
        for _ in 0..claims {
            let Some(claim) = store.claim_turn().await.unwrap() else {
                break;
            };
            order.push(jobs.iter().position(|&job| job == claim.id).unwrap());
            if release {
                store.release_job(claim.id).await.unwrap();
            }
        }
        order
    }

    #[tokio::test]
    async fn submitters_take_turns_then_each_ones_jobs_take_turns() {
        // (the submitter of each job, whether turns are given back, the jobs claimed)
        let cases: [(&[&str], bool, &[usize]); 6] = [
            (&["a", "b"], true, &[0, 1, 0, 1, 0, 1]),
            // One submitter's jobs take turns among themselves.
            (&["a", "a", "a"], true, &[0, 1, 2, 0, 1, 2]),
            // Three jobs of one submitter and one of another: the lone job every other turn.
            (&["a", "a", "a", "b"], true, &[0, 3, 1, 3, 2, 3, 0, 3]),
            (&["a", "b", "b", "c"], true, &[0, 1, 3, 0, 2, 3, 0, 1, 3]),
            // Turns held by other workers: the submitter holding the fewest goes first.
            (&["a", "a", "b"], false, &[0, 2, 1]),
            (&["a", "a", "a", "b", "b"], false, &[0, 3, 1, 4, 2]),
        ];
        for (submitters, release, expected) in cases {
            let order = claims(submitters, expected.len(), release).await;
            assert_eq!(order, expected, "{submitters:?}, release {release}");
        }
    }
}
