//! A run's texts (the files an agent left and its trajectories), stored in parts: writing, reading a part, a turn or a run, and re-encoding.

use futures_util::stream::BoxStream;
use futures_util::{StreamExt, TryStreamExt};

use super::{Store, WriteTx};
use crate::store::run_files::PackedRun;
use crate::store::{PartRow, StoredPart, StoredText};

/// A turn of a run: (run, chain, turn).
pub(crate) type TurnKey<'a> = (i64, &'a str, i64);

impl Store {
    /// Inserts every text of `packed` for run `run`, inside `tx` (its turns' rows exist).
    pub(super) async fn insert_texts(
        tx: &mut WriteTx,
        run: i64,
        packed: &PackedRun,
    ) -> anyhow::Result<()> {
        for text in &packed.texts {
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO run_file (run_id, chain, turn, kind, path, size)
                 VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            )
            .bind(run)
            .bind(&text.chain)
            .bind(i64::try_from(text.turn)?)
            .bind(text.kind.as_str())
            .bind(&text.path)
            .bind(i64::try_from(text.size)?)
            .fetch_one(&mut **tx)
            .await?;
            Self::insert_parts(tx, id, &text.parts).await?;
        }
        Ok(())
    }

    /// Inserts `parts`, deflated, as the parts of text `id` in order, inside `tx`.
    async fn insert_parts(tx: &mut WriteTx, id: i64, parts: &[Vec<u8>]) -> anyhow::Result<()> {
        for (i, part) in parts.iter().enumerate() {
            sqlx::query(
                "INSERT INTO run_file_part (file_id, part, encoding, data)
                 VALUES (?, ?, 'deflate', ?)",
            )
            .bind(id)
            .bind(i64::try_from(i)?)
            .bind(part.as_slice())
            .execute(&mut **tx)
            .await?;
        }
        Ok(())
    }

    /// The files of one turn, by path, `limit` from `offset`; and how many there are.
    pub(crate) async fn turn_files(
        &self,
        (run, chain, turn): TurnKey<'_>,
        limit: i64,
        offset: i64,
    ) -> anyhow::Result<(Vec<StoredText>, i64)> {
        let files = sqlx::query_as(
            "SELECT id, path, size FROM run_file
             WHERE run_id = ? AND chain = ? AND turn = ? AND kind = 'file'
             ORDER BY path LIMIT ? OFFSET ?",
        )
        .bind(run)
        .bind(chain)
        .bind(turn)
        .bind(limit)
        .bind(offset)
        .fetch_all(&self.pool)
        .await?;
        let total = sqlx::query_scalar(
            "SELECT COUNT(*) FROM run_file
             WHERE run_id = ? AND chain = ? AND turn = ? AND kind = 'file'",
        )
        .bind(run)
        .bind(chain)
        .bind(turn)
        .fetch_one(&self.pool)
        .await?;
        Ok((files, total))
    }

    /// One text of a turn: the file at `path`, or the trajectory when `path` is `None`.
    pub(crate) async fn turn_text(
        &self,
        (run, chain, turn): TurnKey<'_>,
        path: Option<&str>,
    ) -> anyhow::Result<Option<StoredText>> {
        let (kind, path) = path.map_or(("trajectory", ""), |p| ("file", p));
        Ok(sqlx::query_as(
            "SELECT id, path, size FROM run_file
             WHERE run_id = ? AND chain = ? AND turn = ? AND kind = ? AND path = ?",
        )
        .bind(run)
        .bind(chain)
        .bind(turn)
        .bind(kind)
        .bind(path)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// Part `part` of text `id` as stored (`None` past its last part).
    pub(crate) async fn text_part(&self, id: i64, part: i64) -> anyhow::Result<Option<StoredPart>> {
        let row: Option<(String, Vec<u8>)> = sqlx::query_as(
            "SELECT encoding, data FROM run_file_part WHERE file_id = ? AND part = ?",
        )
        .bind(id)
        .bind(part)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|(encoding, data)| StoredPart { encoding, data }))
    }

    /// The turns of run `run`, of every chain or (`upto`) of one chain up to one turn.
    pub(crate) async fn run_turns(
        &self,
        run: i64,
        upto: Option<(&str, i64)>,
    ) -> anyhow::Result<Vec<(String, i64)>> {
        let (chain, last) = upto.map_or((None, None), |(c, t)| (Some(c), Some(t)));
        Ok(sqlx::query_as(
            "SELECT chain, turn FROM run_turn
             WHERE run_id = ? AND (?2 IS NULL OR (chain = ?2 AND turn <= ?3))",
        )
        .bind(run)
        .bind(chain)
        .bind(last)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Every stored part of the texts of run `run` (only its files unless
    /// `trajectories`; of every turn or, with `upto`, of one chain's turns up to one),
    /// text by text and each text's parts in order, read one row at a time.
    pub(crate) fn text_parts<'a>(
        &'a self,
        run: i64,
        upto: Option<(&'a str, i64)>,
        trajectories: bool,
    ) -> BoxStream<'a, anyhow::Result<PartRow>> {
        let (chain, last) = upto.map_or((None, None), |(c, t)| (Some(c), Some(t)));
        sqlx::query_as::<_, PartRow>(
            "SELECT f.id, f.chain, f.turn, f.kind, f.path, p.encoding, p.data
             FROM run_file AS f JOIN run_file_part AS p ON p.file_id = f.id
             WHERE f.run_id = ?1 AND (?2 OR f.kind = 'file')
                 AND (?3 IS NULL OR (f.chain = ?3 AND f.turn <= ?4))
             ORDER BY f.id, p.part",
        )
        .bind(run)
        .bind(trajectories)
        .bind(chain)
        .bind(last)
        .fetch(&self.pool)
        .map_err(anyhow::Error::from)
        .boxed()
    }

    /// At most `limit` texts (by id) that have a part stored as it was submitted
    /// (`identity`, what an older version's migration moved over).
    pub(crate) async fn identity_texts(&self, limit: i64) -> anyhow::Result<Vec<i64>> {
        Ok(sqlx::query_scalar(
            "SELECT DISTINCT file_id FROM run_file_part WHERE encoding = 'identity'
             ORDER BY file_id LIMIT ?",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Replaces the parts of text `id` with `repack(its parts in order)`, all deflated, in
    /// one transaction: the text is never lost or half converted.
    pub(crate) async fn repack_text(
        &self,
        id: i64,
        repack: impl FnOnce(Vec<StoredPart>) -> anyhow::Result<Vec<Vec<u8>>>,
    ) -> anyhow::Result<()> {
        let mut tx = self.write_tx().await?;
        let parts: Vec<(String, Vec<u8>)> = sqlx::query_as(
            "SELECT encoding, data FROM run_file_part WHERE file_id = ? ORDER BY part",
        )
        .bind(id)
        .fetch_all(&mut *tx)
        .await?;
        let parts = repack(
            parts
                .into_iter()
                .map(|(encoding, data)| StoredPart { encoding, data })
                .collect(),
        )?;
        sqlx::query("DELETE FROM run_file_part WHERE file_id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        Self::insert_parts(&mut tx, id, &parts).await?;
        tx.commit().await?;
        Ok(())
    }
}
