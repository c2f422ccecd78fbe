//! What operators do with the queue (`switchboard jobs list|retry`): look at jobs and send
//! a dead or waiting one back to run now.

use super::job::{JobId, Status};
use chrono::{DateTime, SecondsFormat, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
};
use switchboard_entities::core::job::{Column, Entity, Model};

#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    pub topic: Option<String>,
    pub status: Option<Status>,
    pub limit: u64,
}

/// The queue at a glance, for metrics: jobs by topic and status (queued, running, dead;
/// done ones are not counted), and per topic when its oldest due queued job fell due.
#[derive(Debug, Default)]
pub struct Backlog {
    pub counts: Vec<(String, String, i64)>,
    pub oldest_due: Vec<(String, DateTime<Utc>)>,
}

/// Two grouped reads over the `(status, run_at)` index.
pub async fn backlog<C: ConnectionTrait>(db: &C, now: DateTime<Utc>) -> Result<Backlog, DbErr> {
    let live = [Status::Queued, Status::Running, Status::Dead];
    let counts = Entity::find()
        .select_only()
        .column(Column::Topic)
        .column(Column::Status)
        .column_as(Column::Id.count(), "n")
        .filter(Column::Status.is_in(live))
        .group_by(Column::Topic)
        .group_by(Column::Status)
        .into_tuple::<(String, String, i64)>()
        .all(db)
        .await?;
    let oldest_due = Entity::find()
        .select_only()
        .column(Column::Topic)
        .column_as(Column::RunAt.min(), "oldest")
        .filter(Column::Status.eq(Status::Queued))
        .filter(Column::RunAt.lte(now))
        .group_by(Column::Topic)
        .into_tuple::<(String, DateTime<Utc>)>()
        .all(db)
        .await?;
    Ok(Backlog { counts, oldest_due })
}

/// Jobs matching `filter`, most recently changed first.
pub async fn list<C: ConnectionTrait>(db: &C, filter: &ListFilter) -> Result<Vec<Model>, DbErr> {
    let mut q = Entity::find()
        .order_by_desc(Column::UpdatedAt)
        .limit(Ord::max(filter.limit, 1));
    if let Some(topic) = &filter.topic {
        q = q.filter(Column::Topic.eq(topic.as_str()));
    }
    if let Some(status) = filter.status {
        q = q.filter(Column::Status.eq(status));
    }
    q.all(db).await
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retried {
    /// Queued and due now.
    Queued,
    /// Not retried: it is running or done.
    Refused(Status),
    NotFound,
}

/// A dead job goes back to the queue with a fresh count of attempts; a queued one (waiting
/// for its retry or its next scheduled run) becomes due now. Both run at `now` on whichever
/// node takes them first.
pub async fn retry<C: ConnectionTrait>(
    db: &C,
    id: JobId,
    now: DateTime<Utc>,
) -> Result<Retried, DbErr> {
    let status = Expr::col(Column::Status);
    let attempts =
        Expr::case(status.clone().eq(Status::Dead), 0).finally(Expr::col(Column::Attempts));
    // A run that ends between the update and the read leaves the job queued: try again.
    for _ in 0..3 {
        let changed = Entity::update_many()
            .col_expr(Column::Status, Expr::value(Status::Queued))
            .col_expr(Column::Attempts, attempts.clone().into())
            .col_expr(Column::RunAt, Expr::value(now))
            .col_expr(Column::UpdatedAt, Expr::value(now))
            .filter(Column::Id.eq(id.0))
            .filter(status.clone().is_in(Status::RETRYABLE))
            .exec(db)
            .await?;
        if changed.rows_affected == 1 {
            return Ok(Retried::Queued);
        }
        let Some(row) = Entity::find_by_id(id.0).one(db).await? else {
            return Ok(Retried::NotFound);
        };
        if !row.status.retryable() {
            return Ok(Retried::Refused(row.status));
        }
    }
    Ok(Retried::Refused(Status::Running))
}

/// Longest error shown in a table cell.
const ERROR_WIDTH: usize = 80;

/// `rows` as an aligned text table: id, topic, status, attempts, run_at, last_error.
pub fn table(rows: &[Model]) -> String {
    let header = ["id", "topic", "status", "attempts", "run_at", "last_error"].map(String::from);
    let cells: Vec<[String; 6]> = rows
        .iter()
        .map(|r| {
            let error: String = r
                .last_error
                .as_deref()
                .unwrap_or("")
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .take(ERROR_WIDTH)
                .collect();
            [
                r.id.to_string(),
                r.topic.clone(),
                r.status.to_string(),
                format!("{}/{}", r.attempts, r.max_attempts),
                r.run_at.to_rfc3339_opts(SecondsFormat::Secs, true),
                error,
            ]
        })
        .collect();
    let mut widths = header.clone().map(|h| h.chars().count());
    for row in &cells {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    std::iter::once(&header)
        .chain(&cells)
        .map(|row| {
            let line: Vec<String> = row
                .iter()
                .zip(widths)
                .map(|(cell, w)| format!("{cell:<w$}"))
                .collect();
            line.join("  ").trim_end().to_owned()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_aligns_columns_and_keeps_errors_on_one_line() {
        let at = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let row = Model {
            id: uuid::Uuid::nil(),
            topic: "interview.webhook".into(),
            payload: serde_json::json!({}),
            run_at: at,
            attempts: 2,
            max_attempts: 13,
            status: Status::Queued,
            lease_owner: None,
            lease_until: None,
            last_error: Some("status 503\nbody".into()),
            key: None,
            created_at: at,
            updated_at: at,
        };
        let text = table(&[row]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("id "));
        let status_col = lines[0].find("status").unwrap();
        assert_eq!(&lines[1][status_col..status_col + 6], "queued");
        assert!(lines[1].contains("2/13"));
        assert!(lines[1].contains("2023-11-14T22:13:20Z"));
        assert!(lines[1].ends_with("status 503 body"));
    }
}
