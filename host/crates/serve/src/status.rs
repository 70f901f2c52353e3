//! What a served environment shows a person: the coverage table (served, replayed and withheld,
//! with reasons and hints) as text for the commands, and the status page's data.
//!
//! The server knows no state: the backend fills these plain structures (`rea-backends` reads the
//! state's coverage summary into a [`CoverageTable`]), and this module only lays them out.

/// A write tool's row of the coverage table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteRow {
    /// The tool name.
    pub tool: String,
    /// The effect (`create`, `update`, `delete`, …).
    pub effect: String,
    /// Why it is withheld (`unconfirmed`, …); `None` when served.
    pub reason: Option<String>,
    /// What to record next; `None` when served.
    pub hint: Option<String>,
}

/// The coverage of an environment: how many read tools the state backs, how many answer from
/// their recordings and why, and each write tool served or withheld.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CoverageTable {
    /// Read tools answered from the state.
    pub reads_state: u64,
    /// Read tools answered from their recordings.
    pub reads_recorded: u64,
    /// Why reads answer from their recordings: reason and count, sorted by reason.
    pub recorded_reasons: Vec<(String, u64)>,
    /// Write tools: the served ones first, then the withheld ones, each in catalog order.
    pub writes: Vec<WriteRow>,
}

impl CoverageTable {
    /// The served writes.
    pub fn served(&self) -> impl Iterator<Item = &WriteRow> {
        self.writes.iter().filter(|row| row.reason.is_none())
    }

    /// The withheld writes.
    pub fn withheld(&self) -> impl Iterator<Item = &WriteRow> {
        self.writes.iter().filter(|row| row.reason.is_some())
    }

    /// The one-line summary: `reads 8 from the state, 1 from recordings (query-varies 1); writes
    /// 3 served, 2 withheld`.
    pub fn headline(&self) -> String {
        let reasons = if self.recorded_reasons.is_empty() {
            String::new()
        } else {
            let listed: Vec<String> = self
                .recorded_reasons
                .iter()
                .map(|(reason, count)| format!("{reason} {count}"))
                .collect();
            format!(" ({})", listed.join(", "))
        };
        format!(
            "reads {} from the state, {} from recordings{reasons}; writes {} served, {} withheld",
            self.reads_state,
            self.reads_recorded,
            self.served().count(),
            self.withheld().count()
        )
    }

    /// The table as text lines, each ending in a newline: the headline, then one row per write
    /// tool (`TOOL  EFFECT  SERVED  REASON  HINT`, columns aligned).
    pub fn to_text(&self) -> String {
        let mut text = format!("coverage: {}\n", self.headline());
        if self.writes.is_empty() {
            return text;
        }
        let rows: Vec<[&str; 4]> = self
            .writes
            .iter()
            .map(|row| {
                [
                    row.tool.as_str(),
                    row.effect.as_str(),
                    if row.reason.is_none() {
                        "served"
                    } else {
                        "withheld"
                    },
                    row.reason.as_deref().unwrap_or(""),
                ]
            })
            .collect();
        let header = ["WRITE TOOL", "EFFECT", "SERVED", "REASON"];
        let widths: Vec<usize> = (0..4)
            .map(|column| {
                rows.iter()
                    .map(|row| row[column].chars().count())
                    .chain([header[column].len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: [&str; 4], hint: &str| {
            let mut line = String::from("  ");
            for (cell, width) in cells.iter().zip(&widths) {
                line.push_str(&format!("{cell:<width$}  "));
            }
            line.push_str(hint);
            format!("{}\n", line.trim_end())
        };
        text.push_str(&line(header, "HINT"));
        for (row, cells) in self.writes.iter().zip(rows) {
            text.push_str(&line(cells, row.hint.as_deref().unwrap_or("")));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> CoverageTable {
        CoverageTable {
            reads_state: 8,
            reads_recorded: 1,
            recorded_reasons: vec![("query-varies".to_owned(), 1)],
            writes: vec![
                WriteRow {
                    tool: "delete_posts_by_id".to_owned(),
                    effect: "delete".to_owned(),
                    reason: None,
                    hint: None,
                },
                WriteRow {
                    tool: "post_comments".to_owned(),
                    effect: "create".to_owned(),
                    reason: Some("unconfirmed".to_owned()),
                    hint: Some("Read the entity and its list after the write.".to_owned()),
                },
            ],
        }
    }

    #[test]
    fn the_text_table_aligns_its_columns_and_ends_with_the_hint() {
        assert_eq!(
            table().to_text(),
            "coverage: reads 8 from the state, 1 from recordings (query-varies 1); writes 1 served, 1 withheld\n\
             \x20 WRITE TOOL          EFFECT  SERVED    REASON       HINT\n\
             \x20 delete_posts_by_id  delete  served\n\
             \x20 post_comments       create  withheld  unconfirmed  Read the entity and its list after the write.\n"
        );
    }

    #[test]
    fn no_write_tools_is_the_headline_alone() {
        let table = CoverageTable {
            reads_state: 2,
            ..CoverageTable::default()
        };
        assert_eq!(
            table.to_text(),
            "coverage: reads 2 from the state, 0 from recordings; writes 0 served, 0 withheld\n"
        );
    }
}
