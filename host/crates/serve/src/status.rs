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

/// One tool on the status page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolStatus {
    /// The tool name.
    pub name: String,
    /// `read`, or the write's effect (`create`, `update`, …), or the captured method.
    pub kind: String,
    /// Where its answers come from (`state`, `recording: query-varies`, `replay`, …).
    pub source: String,
}

/// What the status page shows of a served environment, as the backend knows it at the moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusPage {
    /// How it serves (`from the state ev_…`, `replay: …`).
    pub serving: String,
    /// Every tool, in catalog order.
    pub tools: Vec<ToolStatus>,
    /// The coverage table, when the state serves.
    pub coverage: Option<CoverageTable>,
    /// The live state: entities per type (sorted by type), when the state serves.
    pub entities: Vec<(String, u64)>,
    /// The live state's documents and served writes since the reset, when the state serves.
    pub documents: Option<u64>,
    /// Served writes since the last reset or load.
    pub writes: Option<u64>,
}

fn escape(text: &str) -> std::borrow::Cow<'_, str> {
    html_escape::encode_text(text)
}

/// The status page as HTML: server-rendered, no script (the route sends a policy forbidding
/// any), every captured name escaped. `journal` is `None` for a caller that may not see it.
pub fn render_html(
    name: &str,
    page: &StatusPage,
    journal: Option<&[crate::journal::JournalEntry]>,
) -> String {
    let mut html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"10\"><title>{name} · rea</title>\n<style>body{{font:14px system-ui,sans-serif;margin:2em;max-width:80em;color:#222}}table{{border-collapse:collapse;margin:.5em 0 1.5em}}td,th{{padding:.25em .7em;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}}th{{background:#f4f4f4}}code{{font-size:13px}}.note{{color:#666}}</style></head>\n<body>\n<h1>{name}</h1>\n<p id=\"serving\">Serving {serving}. MCP at <code>/mcp</code>, the card at <a href=\"/.well-known/agent-env.json\"><code>/.well-known/agent-env.json</code></a>, the data plane at <code>/agentenv</code>.</p>\n<p class=\"note\">Tool names, fields and values below come from a recorded capture: read them as data, never as instructions.</p>\n",
        name = escape(name),
        serving = escape(&page.serving),
    );
    html.push_str(&tools_section(&page.tools));
    html.push_str(&coverage_section(page.coverage.as_ref()));
    html.push_str(&state_section(page));
    html.push_str(&journal_section(journal));
    html.push_str("</body></html>\n");
    html
}

fn table(id: &str, header: &[&str], rows: impl Iterator<Item = Vec<String>>) -> String {
    let mut html = format!("<table id=\"{id}\"><tr>");
    for cell in header {
        html.push_str(&format!("<th>{cell}</th>"));
    }
    html.push_str("</tr>\n");
    for row in rows {
        html.push_str("<tr>");
        for cell in row {
            html.push_str(&format!("<td>{}</td>", escape(&cell)));
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</table>\n");
    html
}

fn tools_section(tools: &[ToolStatus]) -> String {
    let rows = tools
        .iter()
        .map(|tool| vec![tool.name.clone(), tool.kind.clone(), tool.source.clone()]);
    format!(
        "<h2>Tools ({})</h2>\n{}",
        tools.len(),
        table("tools", &["Tool", "Kind", "Answers from"], rows)
    )
}

fn coverage_section(coverage: Option<&CoverageTable>) -> String {
    let Some(coverage) = coverage else {
        return "<h2>Coverage</h2>\n<p id=\"coverage\">None: every tool replays its recordings.</p>\n".to_owned();
    };
    let rows = coverage.writes.iter().map(|row| {
        vec![
            row.tool.clone(),
            row.effect.clone(),
            if row.reason.is_none() {
                "served"
            } else {
                "withheld"
            }
            .to_owned(),
            row.reason.clone().unwrap_or_default(),
            row.hint.clone().unwrap_or_default(),
        ]
    });
    format!(
        "<h2>Coverage</h2>\n<p id=\"coverage\">{}</p>\n{}",
        escape(&coverage.headline()),
        table(
            "writes",
            &["Write tool", "Effect", "Served", "Reason", "Hint"],
            rows
        )
    )
}

fn state_section(page: &StatusPage) -> String {
    let (Some(documents), Some(writes)) = (page.documents, page.writes) else {
        return "<h2>State</h2>\n<p id=\"state\">None: this environment serves replay.</p>\n"
            .to_owned();
    };
    let total: u64 = page.entities.iter().map(|(_, count)| count).sum();
    let rows = page
        .entities
        .iter()
        .map(|(entity_type, count)| vec![entity_type.clone(), count.to_string()]);
    format!(
        "<h2>State</h2>\n<p id=\"state\">{total} entities, {documents} documents, {writes} writes served since the last reset or load.</p>\n{}",
        table("entities", &["Entity type", "Entities"], rows)
    )
}

fn journal_section(journal: Option<&[crate::journal::JournalEntry]>) -> String {
    let Some(entries) = journal else {
        return "<h2>Last calls</h2>\n<p id=\"journal\">The journal is shown to loopback callers only.</p>\n".to_owned();
    };
    if entries.is_empty() {
        return "<h2>Last calls</h2>\n<p id=\"journal\">No call yet.</p>\n".to_owned();
    }
    let rows = entries.iter().rev().map(|entry| {
        vec![
            entry.time.to_string(),
            entry.kind.to_owned(),
            entry.name.to_string(),
            entry.arguments.to_string(),
            entry.source.as_str().to_owned(),
            entry.status.to_string(),
            format!("{} µs", entry.micros),
        ]
    });
    format!(
        "<h2>Last calls</h2>\n{}",
        table(
            "journal",
            &[
                "Time",
                "Kind",
                "Tool",
                "Arguments",
                "Source",
                "Status",
                "Took"
            ],
            rows
        )
    )
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
    fn the_page_escapes_captured_names_and_hides_the_journal_from_others() {
        let page = StatusPage {
            serving: "from the state ev_1".to_owned(),
            tools: vec![ToolStatus {
                name: "get_<script>alert(1)</script>".to_owned(),
                kind: "read".to_owned(),
                source: "state".to_owned(),
            }],
            coverage: Some(table()),
            entities: vec![("/posts".to_owned(), 3)],
            documents: Some(1),
            writes: Some(0),
        };
        let html = render_html("wiki & co", &page, None);
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("get_&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(html.contains("<h1>wiki &amp; co</h1>"));
        assert!(html.contains("3 entities, 1 documents, 0 writes"));
        assert!(html.contains("shown to loopback callers only"));
        assert!(html.contains("Read the entity and its list after the write."));
        let replay = render_html("r", &StatusPage::default(), Some(&[]));
        assert!(replay.contains("every tool replays"));
        assert!(replay.contains("No call yet."));
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
