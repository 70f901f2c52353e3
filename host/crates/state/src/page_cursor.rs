//! Envelope members naming a page's position by a keyset cursor ([`CursorForm`]): the cursor of
//! the last member a page listed (the sort keys' values, then the cursor's key field value,
//! comma-separated with `+` for a space, as the cursor parameter reads them), as the last
//! position listed, as the next page's cursor while matches remain, or as a link to the next
//! page; or by page number or item offset, an object of links beside the list whose relations
//! each repeat the call's query with the position parameter first (or it and the page size
//! last), set to a page learned per relation (a step from the call's page, the first, the
//! whole-page last) and present where its learned [`PagePresence`] holds
//! ([`CursorForm::PageLinks`]). Learned where every checked line of a list with a cursor (or a
//! position and a page-size) parameter shows the member so (or, for links, where the links
//! alone name the offset and the size), and minted for every call the state evaluates.

use percent_encoding::{AsciiSet, CONTROLS, NON_ALPHANUMERIC, utf8_percent_encode};
use rea_plugin_api::contracts::capture::url::decode_query;
use rea_plugin_api::json::{Json, Object};

use crate::model::{
    CursorForm, PageAnchor, PagePresence, PageRelation, QueryModel, QueryRole, Restatement,
};
use crate::query_order::QueryOrder;
use crate::render::scalar_text;

/// What form-encoding leaves as it is: letters, digits and `*-._`.
const FORM: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'*')
    .remove(b'-')
    .remove(b'.')
    .remove(b'_');

/// What strict encoding leaves as it is: letters, digits and `-._~` (RFC 3986's unreserved
/// characters).
const STRICT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// What a request's own text cannot hold as it is, so a client always encodes it (RFC 3986):
/// controls, the space, `"#%<>\^`{|}` and, inside a query's names and values, `&`, `+` and `=`;
/// non-ASCII text is encoded as UTF-8 by the encoder itself.
const REQUEST_TEXT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}')
    .add(b'&')
    .add(b'+')
    .add(b'=');

/// How a link spells its names and values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkEncoding {
    /// As decoded.
    Decoded,
    /// As a client sends them: decoded but for what a request's text cannot hold
    /// ([`REQUEST_TEXT`]: a space is `%20`), what an echo of the call repeats.
    AsSent,
    /// Form-encoded ([`FORM`], `+` for a space).
    Form,
    /// Strictly encoded ([`STRICT`], `+` for a space).
    Strict,
}

impl LinkEncoding {
    /// The encoding a form's `decoded` and `strict` flags name.
    fn of(decoded: bool, strict: bool) -> Self {
        match (decoded, strict) {
            (true, _) => LinkEncoding::Decoded,
            (false, false) => LinkEncoding::Form,
            (false, true) => LinkEncoding::Strict,
        }
    }

    /// A name or value spelled so.
    fn spell(self, text: &str) -> String {
        match self {
            LinkEncoding::Decoded => text.to_owned(),
            LinkEncoding::AsSent => utf8_percent_encode(text, REQUEST_TEXT).to_string(),
            LinkEncoding::Form => form_encode(text),
            LinkEncoding::Strict => utf8_percent_encode(text, STRICT)
                .to_string()
                .replace("%20", "+"),
        }
    }
}

/// How a links form spells its queries.
#[derive(Debug, Clone, Copy)]
struct LinkSpelling<'a> {
    /// Names and values as decoded (else encoded as `encoding` says).
    decoded: bool,
    /// How its relations' links spell names and values.
    encoding: LinkEncoding,
    /// How the links restate the call's query, where they do not repeat it as sent.
    restated: Option<&'a Restatement>,
    /// The position and page-size parameters after the call's other arguments.
    position_last: bool,
    /// Every pair in name order.
    sorted: bool,
    /// The position parameter left out where it names the first item.
    first_unnamed: bool,
    /// A relation the page lacks shown as `null`.
    absent_null: bool,
    /// The position parameter after the call's other arguments, the size keeping its place.
    appended: bool,
}

/// The parameter naming a call's page: a page number counted from a base, or the offset of the
/// page's first item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position<'a> {
    /// A page number (`@page_index`, from `base`).
    Page {
        /// The parameter's name.
        name: &'a str,
        /// The first page's number.
        base: u64,
    },
    /// An item offset (`page[offset]`).
    Offset {
        /// The parameter's name.
        name: &'a str,
    },
}

impl<'a> Position<'a> {
    /// The position parameter among a model's roles, a page number first.
    pub fn of(roles: impl Iterator<Item = (&'a String, &'a QueryRole)> + Clone) -> Option<Self> {
        let page = roles.clone().find_map(|(name, role)| match role {
            QueryRole::Page { base } => Some(Position::Page { name, base: *base }),
            _ => None,
        });
        page.or_else(|| {
            roles
                .into_iter()
                .find_map(|(name, role)| (*role == QueryRole::Offset).then_some(name))
                .map(|name| Position::Offset { name })
        })
    }

    /// The parameter's name.
    pub fn name(&self) -> &'a str {
        match self {
            Position::Page { name, .. } | Position::Offset { name } => name,
        }
    }

    /// The item offset a value of the parameter (the first page without one) names with pages
    /// of `size`; `None` when it is no number or precedes the base.
    pub fn offset(&self, value: Option<&str>, size: u64) -> Option<u64> {
        let Some(value) = value else {
            return Some(0);
        };
        let value: u64 = value.parse().ok()?;
        match self {
            Position::Page { base, .. } => value.checked_sub(*base)?.checked_mul(size),
            Position::Offset { .. } => Some(value),
        }
    }

    /// The parameter's value naming the page starting at item `offset`.
    fn value(&self, offset: u64, size: u64) -> u64 {
        match self {
            Position::Page { base, .. } => offset / size.max(1) + base,
            Position::Offset { .. } => offset,
        }
    }
}

/// Where a call's page stands: its first item's offset, its size and the matched count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PagePlace {
    /// The page's first item's offset.
    pub offset: u64,
    /// The page size.
    pub size: u64,
    /// How many members matched.
    pub matched: u64,
}

impl PagePlace {
    /// The matched count rounded down to a whole number of pages.
    fn last_whole(&self) -> u64 {
        self.matched / self.size.max(1) * self.size
    }

    /// The item offset a relation names from this page; `None` before the first item.
    fn target(&self, relation: &PageRelation) -> Option<u64> {
        match relation.anchor {
            Some(PageAnchor::First) => Some(0),
            Some(PageAnchor::LastWhole) => Some(self.last_whole()),
            Some(PageAnchor::LastPage) => {
                Some(self.matched.saturating_sub(1) / self.size.max(1) * self.size)
            }
            None => {
                let step = relation.step.checked_mul(i64::try_from(self.size).ok()?)?;
                let target = i64::try_from(self.offset).ok()?.checked_add(step)?;
                u64::try_from(if relation.clamped {
                    target.max(0)
                } else {
                    target
                })
                .ok()
            }
        }
    }

    /// Whether a relation naming `target` is present on this page.
    fn holds(&self, presence: PagePresence, target: u64) -> bool {
        match presence {
            PagePresence::Exists => target <= self.offset || target < self.matched,
            PagePresence::Always => true,
            PagePresence::BeforeLastWhole => target < self.last_whole(),
            PagePresence::AfterCall => target > self.offset,
            PagePresence::PageBeforeCall => target.saturating_add(self.size) <= self.offset,
            PagePresence::AfterFirst => self.offset > 0,
        }
    }
}

/// One evaluated call as cursor members see it.
pub struct PageEnd<'a> {
    /// The list's query model.
    pub model: &'a QueryModel,
    /// The call's arguments with its expressions split (as evaluated).
    pub expanded: &'a [(String, String)],
    /// The call's arguments as sent.
    pub sent: &'a [(String, String)],
    /// The last member the page listed.
    pub last: Option<&'a Object>,
    /// Whether matches remain after the page.
    pub remaining: bool,
    /// How many members matched before paging.
    pub matched: usize,
}

impl PageEnd<'_> {
    /// The cursor parameter's name and key field.
    fn cursor(&self) -> Option<(&str, &str)> {
        self.model
            .parameters
            .iter()
            .find_map(|(name, role)| match role {
                QueryRole::After { key } => Some((name.as_str(), key.as_str())),
                _ => None,
            })
    }

    /// The fields the call sorts by.
    fn sort_fields(&self) -> Vec<&str> {
        self.expanded
            .iter()
            .filter(|(name, _)| matches!(self.model.role(name), Some(QueryRole::Sort)))
            .flat_map(|(_, value)| value.split(','))
            .filter(|field| !field.is_empty())
            .map(|field| field.trim_start_matches('-'))
            .collect()
    }

    /// The cursor naming the last member listed, as text; `None` when a value is missing.
    fn last_text(&self, last: &Object, key: &str) -> Option<String> {
        let mut parts = Vec::new();
        for field in self.sort_fields().into_iter().chain([key]) {
            let value = crate::query::field_value(last, field).and_then(scalar_text)?;
            parts.push(value.replace(' ', "+"));
        }
        Some(parts.join(","))
    }

    /// The member's value for this page in a form, `Some(None)` when the page leaves it out;
    /// `None` when it cannot be told.
    pub fn minted(&self, form: &CursorForm) -> Option<Option<Json>> {
        match form {
            CursorForm::PageLinks {
                prefix,
                decoded,
                relations,
                position_last,
                default_size,
                link_only,
                sorted,
                first_unnamed,
                absent_null,
                appended,
                order,
                strict,
                restated,
            } => self.page_links(
                prefix,
                LinkSpelling {
                    decoded: *decoded,
                    encoding: LinkEncoding::of(*decoded, *strict),
                    restated: restated.as_ref(),
                    position_last: *position_last,
                    sorted: *sorted,
                    first_unnamed: *first_unnamed,
                    absent_null: *absent_null,
                    appended: *appended,
                },
                relations,
                (*default_size, link_only.as_ref(), order),
            ),
            _ => self.value(form).map(Some),
        }
    }

    /// The member's value for this page in a keyset form; `None` when it cannot be told (or the
    /// form is no keyset form).
    pub fn value(&self, form: &CursorForm) -> Option<Json> {
        let (name, key) = self.cursor()?;
        let Some(last) = self.last else {
            return Some(Json::Null);
        };
        let text = self.last_text(last, key)?;
        match form {
            CursorForm::Last if self.sort_fields().is_empty() => {
                crate::query::field_value(last, key).cloned()
            }
            CursorForm::Last => Some(Json::String(text.into())),
            _ if !self.remaining => Some(Json::Null),
            CursorForm::Next => Some(Json::String(text.into())),
            CursorForm::NextLink { prefix } => {
                Some(Json::from(format!("{prefix}?{}", self.query(name, &text))))
            }
            CursorForm::PageLinks { .. } => None,
        }
    }

    /// The parameter naming the call's page, when the model has one: one the list's recorded
    /// lines established first (an offset they sent before a page number a sibling list's
    /// names lent, Django REST framework's `limit`/`offset` beside `page`).
    fn position(&self) -> Option<Position<'_>> {
        Position::of(self.model.parameters.iter())
            .or_else(|| Position::of(self.model.parameters.iter().chain(&self.model.generalized)))
    }

    /// The value the call gave a parameter, if any.
    fn sent_value(&self, name: &str) -> Option<&str> {
        self.expanded
            .iter()
            .find(|(sent, _)| sent == name)
            .map(|(_, value)| value.as_str())
    }

    /// The page-size parameter's name and the value the call gave it, if any.
    fn page_size(&self) -> Option<(&str, Option<&str>)> {
        let name = self
            .model
            .parameters
            .iter()
            .chain(&self.model.generalized)
            .find_map(|(name, role)| (*role == QueryRole::PageSize).then_some(name.as_str()))?;
        let sent = self
            .expanded
            .iter()
            .find(|(expanded, _)| matches!(self.model.role(expanded), Some(QueryRole::PageSize)))
            .map(|(_, value)| value.as_str());
        Some((name, sent))
    }

    /// The links object of a [`CursorForm::PageLinks`] form: when the call names no page size
    /// and no default size was learned, its echo relations alone (absent without one); else
    /// each relation present where its presence holds, an echo relation always.
    fn page_links(
        &self,
        prefix: &str,
        spelling: LinkSpelling<'_>,
        relations: &[PageRelation],
        (default_size, link_only, order): (Option<u64>, Option<&(String, String)>, &QueryOrder),
    ) -> Option<Option<Json>> {
        let sent = order.repeat(self.sent);
        let (size_name, sent_size) = match link_only {
            // A page size the list's own calls never sent: a call sending it is not told.
            Some((_, size_name)) => match self.sent_value(size_name) {
                Some(_) if self.model.parameters.get(size_name) != Some(&QueryRole::PageSize) => {
                    return None;
                }
                sent => (size_name.as_str(), sent),
            },
            None => self.page_size()?,
        };
        let size = match (sent_size, default_size) {
            (Some(value), _) => value.parse().ok()?,
            (None, Some(size)) => size,
            (None, None) => {
                return Some(echoes_only(prefix, (&sent, spelling.decoded), relations));
            }
        };
        let position = match link_only {
            Some((name, _)) => Position::Offset { name },
            None => self.position()?,
        };
        let value = self
            .expanded
            .iter()
            .find(|(name, _)| name == position.name())
            .map(|(_, value)| value.as_str());
        let place = PagePlace {
            offset: position.offset(value, size)?,
            size,
            matched: u64::try_from(self.matched).ok()?,
        };
        let mut links = Object::new();
        for relation in relations {
            if relation.echo {
                let entry = echo_entry(prefix, (&sent, spelling.decoded), relation);
                links.insert(relation.key.clone(), entry);
                continue;
            }
            let target = place
                .target(relation)
                .filter(|target| place.holds(relation.present, *target));
            let Some(target) = target else {
                if spelling.absent_null {
                    links.insert(relation.key.clone(), Json::Null);
                }
                continue;
            };
            let unnamed = target == 0 && !relation.names_first;
            let position_pair = (position.name(), position.value(target, size), unnamed);
            let pairs =
                self.relation_pairs(&sent, relation, position_pair, (size_name, size), spelling);
            let link = match pairs.as_slice() {
                [] => prefix.to_owned(),
                _ => format!("{prefix}?{}", spell_pairs(&pairs, spelling.encoding)),
            };
            let entry = crate::render::with_value_at(
                relation.template.clone(),
                &relation.link,
                Json::String(link.into()),
            );
            links.insert(relation.key.clone(), entry);
        }
        Some(Some(Json::Object(links)))
    }

    /// A relation's link's query pairs, as the form restates the call's query (see
    /// [`Self::restated_pairs`]) or repeats it (see [`Self::page_pairs`]).
    fn relation_pairs(
        &self,
        sent: &[(String, String)],
        relation: &PageRelation,
        position_pair: (&str, u64, bool),
        size: (&str, u64),
        spelling: LinkSpelling<'_>,
    ) -> Vec<(String, String)> {
        match spelling.restated {
            Some(restated) => self.restated_pairs(sent, restated, position_pair, size, spelling),
            None => Self::page_pairs(
                sent,
                position_pair,
                size,
                (spelling, relation.leaves_unsent_size),
            ),
        }
    }

    /// A page's query pairs: the position parameter first, then the call's other arguments as
    /// sent (the page size last when the call named none); or, `position_last`, the call's
    /// arguments but those two, then the position and the page size; or, `sorted`, all of them
    /// in name order; or, `appended`, the call's arguments but the position (the page size in
    /// its place, else after them), then the position. The position is left out at the first
    /// item (`first`) when `first_unnamed`, and the size when the call sent none and the
    /// relation leaves it out.
    fn page_pairs(
        sent: &[(String, String)],
        (position, value, first): (&str, u64, bool),
        (size_name, size): (&str, u64),
        (spelling, leaves_unsent_size): (LinkSpelling<'_>, bool),
    ) -> Vec<(String, String)> {
        let position_pair =
            (!(first && spelling.first_unnamed)).then(|| (position.to_owned(), value.to_string()));
        let sized = sent.iter().any(|(name, _)| name == size_name);
        let size_pair =
            (sized || !leaves_unsent_size).then(|| (size_name.to_owned(), size.to_string()));
        let others = sent.iter().filter(|(name, _)| name != position);
        if spelling.appended {
            return others
                .cloned()
                .chain(size_pair.filter(|_| !sized))
                .chain(position_pair)
                .collect();
        }
        if spelling.sorted || spelling.position_last {
            let kept = others.filter(|(sent, _)| sent != size_name).cloned();
            let mut pairs: Vec<(String, String)> =
                kept.chain(position_pair).chain(size_pair).collect();
            if spelling.sorted {
                pairs.sort_by(|a, b| a.0.cmp(&b.0));
            }
            return pairs;
        }
        position_pair
            .into_iter()
            .chain(others.cloned())
            .chain(size_pair.filter(|_| !sized))
            .collect()
    }

    /// A page's query pairs as a [`Restatement`] spells them: the leading names (the page size
    /// the page's, another the call's value, its sort's descending marks left out where so
    /// learned, else the name's default), the call's other pairs choosing members (those the
    /// model gives a role other than [`QueryRole::Inert`]) as sent, then the position (left out
    /// at the first item as [`Self::page_pairs`] leaves it).
    fn restated_pairs(
        &self,
        sent: &[(String, String)],
        restated: &Restatement,
        (position, value, first): (&str, u64, bool),
        (size_name, size): (&str, u64),
        spelling: LinkSpelling<'_>,
    ) -> Vec<(String, String)> {
        let restate = |(name, value): &(String, String)| {
            let sorts = matches!(self.model.role(name), Some(QueryRole::Sort));
            let value = if sorts && restated.unsigned_sort {
                unsigned(value)
            } else {
                value.clone()
            };
            (name.clone(), value)
        };
        let leading = restated.leading.iter().filter_map(|(name, default)| {
            let value = match sent.iter().find(|(sent, _)| sent == name) {
                _ if name == size_name => size.to_string(),
                Some(pair) => restate(pair).1,
                None => default.clone()?,
            };
            Some((name.clone(), value))
        });
        let chooses = |name: &str| {
            name != position
                && restated.leading.iter().all(|(leading, _)| leading != name)
                && self
                    .model
                    .role(name)
                    .is_some_and(|role| !matches!(role, QueryRole::Inert { .. }))
        };
        let others = sent.iter().filter(|(name, _)| chooses(name)).map(restate);
        let position_pair =
            (!(first && spelling.first_unnamed)).then(|| (position.to_owned(), value.to_string()));
        leading.chain(others).chain(position_pair).collect()
    }

    /// The next page's query: the call's other arguments, the cursor, then its sorts.
    fn query(&self, cursor: &str, text: &str) -> String {
        let sorts = |name: &str| {
            self.expanded.iter().any(|(expanded, _)| expanded == name)
                && matches!(self.model.role(name), Some(QueryRole::Sort))
        };
        let others = self
            .sent
            .iter()
            .filter(|(name, _)| name != cursor && !sorts(name));
        let sorted = self.sent.iter().filter(|(name, _)| sorts(name));
        let cursor_pair = (cursor.to_owned(), text.to_owned());
        others
            .chain(std::iter::once(&cursor_pair))
            .chain(sorted)
            .map(|(name, value)| format!("{}={}", form_encode(name), form_encode(value)))
            .collect::<Vec<_>>()
            .join("&")
    }
}

/// Form-encodes a query name or value (`+` for a space).
fn form_encode(text: &str) -> String {
    utf8_percent_encode(text, FORM)
        .to_string()
        .replace("%20", "+")
}

/// The links object of a call the form lists no page links for: its echo relations alone
/// (`None` when it has none), the call's pairs (`sent`) spelled decoded or not.
fn echoes_only(
    prefix: &str,
    sent: (&[(String, String)], bool),
    relations: &[PageRelation],
) -> Option<Json> {
    let mut links = Object::new();
    for relation in relations.iter().filter(|relation| relation.echo) {
        links.insert(relation.key.clone(), echo_entry(prefix, sent, relation));
    }
    (!links.is_empty()).then_some(Json::Object(links))
}

/// An echo relation's entry: the prefix, then `?` and the call's pairs (the prefix alone for a
/// call sending none).
fn echo_entry(
    prefix: &str,
    (sent, decoded): (&[(String, String)], bool),
    relation: &PageRelation,
) -> Json {
    let link = if relation.echo_bare {
        path_of(prefix).to_owned()
    } else {
        echo_text(prefix, sent, relation.echo_decoded.unwrap_or(decoded))
    };
    crate::render::with_value_at(
        relation.template.clone(),
        &relation.link,
        Json::String(link.into()),
    )
}

/// A link's path: the link less its scheme and authority (`/api/task` of
/// `http://127.0.0.1:18893/api/task`; a link without them is its path).
pub(crate) fn path_of(prefix: &str) -> &str {
    match prefix.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("", |at| &rest[at..]),
        None => prefix,
    }
}

/// A call's own address: the prefix, then `?` and its pairs as sent (the prefix alone without
/// pairs).
fn echo_text(prefix: &str, sent: &[(String, String)], decoded: bool) -> String {
    if sent.is_empty() {
        return prefix.to_owned();
    }
    format!("{prefix}?{}", spell_query(sent, decoded))
}

/// A call's query pairs joined as `name=value&…`, each spelled as the client sent it
/// ([`LinkEncoding::AsSent`]) or form-encoded.
pub(crate) fn spell_query(pairs: &[(String, String)], decoded: bool) -> String {
    let encoding = if decoded {
        LinkEncoding::AsSent
    } else {
        LinkEncoding::Form
    };
    spell_pairs(pairs, encoding)
}

/// Query pairs joined as `name=value&…`, each spelled in `encoding`.
fn spell_pairs(pairs: &[(String, String)], encoding: LinkEncoding) -> String {
    pairs
        .iter()
        .map(|(name, value)| format!("{}={}", encoding.spell(name), encoding.spell(value)))
        .collect::<Vec<_>>()
        .join("&")
}

/// A sort's value without its descending marks (`-priority,title` as `priority,title`).
fn unsigned(value: &str) -> String {
    value
        .split(',')
        .map(|key| key.trim_start_matches('-'))
        .collect::<Vec<_>>()
        .join(",")
}

/// One recorded page as links learning sees it.
#[derive(Debug, Clone, Copy)]
pub struct ShownPage<'a> {
    /// The links object the page showed.
    pub links: &'a Json,
    /// The position parameter's value the call sent, if any.
    pub position: Option<&'a str>,
    /// The page size the call sent, if any.
    pub size: Option<u64>,
    /// How many members matched.
    pub matched: u64,
    /// The call's query pairs as sent.
    pub sent: &'a [(String, String)],
}

/// One relation as the recorded pages showed it: its entry's template and link pointer, per
/// page showing it the page's index and the item offset its link names, whether its links
/// on pages whose call sent no page size named one (`Some(true)`), never did (`Some(false)`),
/// and whether its links naming the first item named the position.
struct ShownRelation {
    template: Json,
    link: String,
    targets: Vec<(usize, u64)>,
    names_unsent_size: Option<bool>,
    named_first: Option<bool>,
}

/// The link prefix, the relations by key and the spelling the links objects showed.
type ShownLinks = (String, Vec<(String, ShownRelation)>, ShownSpelling);

/// What the links objects showed of their spelling beyond each relation.
#[derive(Debug, Clone, Copy, Default)]
struct ShownSpelling {
    /// Some link named the first item without the position parameter.
    first_unnamed: bool,
    /// Some relation was shown as `null`.
    absent_null: bool,
}

/// The [`CursorForm::PageLinks`] forms the links objects recorded on pages may take (each
/// spelling: position first or last, all pairs in name order, the position appended after the
/// call's query; form-encoded or decoded): each member of them a relation holding one link text
/// (or `null` where the page lacks it) whose query names the position parameter (or, naming the
/// first item, may leave it out), its entry alike on every page, the page it names and when it
/// is present alike on every page, every link text after one prefix, and the page size of calls
/// naming none one value; or, where the pages' links are no such relations alone, also a
/// relation echoing the call on every page ([`echo_relations`]), a page whose call named no
/// size (no default learned) showing only those. Each repeats a call's query in the order the
/// recorded calls sent theirs ([`QueryOrder`]). None otherwise.
pub fn page_link_forms(
    shown: &[ShownPage<'_>],
    position: Position<'_>,
    size_name: &str,
) -> Vec<CursorForm> {
    page_link_forms_sized(shown, (position, size_name), None)
}

/// The forms of [`page_link_forms`], a call naming no page size listing `fallback` items a page
/// where its links never name the size (the list's default page size, which the evaluated
/// lines showed: Django REST framework's `next` repeats only the parameters sent).
pub fn page_link_forms_sized(
    shown: &[ShownPage<'_>],
    (position, size_name): (Position<'_>, &str),
    fallback: Option<u64>,
) -> Vec<CursorForm> {
    let mut forms = forms_beside(shown, (position, size_name, fallback), Vec::new());
    let echoes = echo_relations(shown);
    if !echoes.is_empty() {
        forms.extend(forms_beside(shown, (position, size_name, fallback), echoes));
    }
    forms
}

/// The forms of [`page_link_forms`] whose echo relations are `echoes`.
fn forms_beside(
    shown: &[ShownPage<'_>],
    (position, size_name, fallback): (Position<'_>, &str, Option<u64>),
    echoes: Vec<ShownEcho>,
) -> Vec<CursorForm> {
    let stripped: Vec<Json> = shown
        .iter()
        .map(|page| without_keys(page.links, &echoes))
        .collect();
    let Some(default_size) = default_size(shown, size_name).map(|found| found.or(fallback)) else {
        return Vec::new();
    };
    let Some((pages, places)) = placed_pages(
        shown,
        &stripped,
        (position, default_size),
        !echoes.is_empty(),
    ) else {
        return Vec::new();
    };
    let Some((prefix, relations, spelling)) =
        shown_relations(&pages, &places, (position, size_name), !echoes.is_empty())
    else {
        return Vec::new();
    };
    if echoes.iter().any(|echo| {
        let own = if echo.bare { path_of(&prefix) } else { &prefix };
        echo.prefix != own
    }) {
        return Vec::new();
    }
    let mut learned = Vec::new();
    for (key, relation) in relations {
        let Some(relation) = learn_relation(key, relation, &places, (position, spelling)) else {
            return Vec::new();
        };
        learned.push(relation);
    }
    learned.extend(echoes.into_iter().map(ShownEcho::relation));
    order_relations(&mut learned, shown);
    let order = QueryOrder::learn(shown.iter().map(|page| page.sent));
    let restated = shown_restatement(shown, &stripped, (position.name(), size_name));
    spelled_forms(
        &prefix,
        learned,
        (default_size, order),
        (spelling, restated.as_ref()),
    )
}

/// The [`Restatement`] the pages' links (`stripped`: less their echoes) show, if any: the names
/// every link spells first, ahead of its other pairs (the position left out), a name a call did
/// not send linked with one value (its default), and whether a sort's descending marks are left
/// out (some call's sent value linked without them); `None` when no leading name but the page
/// size (whose default the form's `default_size` holds) was ever linked unsent, or a name's
/// unsent values differ.
fn shown_restatement(
    shown: &[ShownPage<'_>],
    stripped: &[Json],
    (position, size_name): (&str, &str),
) -> Option<Restatement> {
    let mut leading: Option<Vec<String>> = None;
    let mut linked: Vec<(usize, Vec<(String, String)>)> = Vec::new();
    for (index, links) in stripped.iter().enumerate() {
        for (_, entry) in links
            .as_object()
            .into_iter()
            .flat_map(|object| object.iter())
        {
            let Some(Some((_, text))) = entry_link(entry) else {
                continue;
            };
            let query = text.split_once('?').map_or("", |(_, query)| query);
            let pairs: Vec<(String, String)> = decode_query(query)
                .into_iter()
                .filter(|(name, _)| name != position)
                .collect();
            let names =
                leading.get_or_insert_with(|| pairs.iter().map(|(name, _)| name.clone()).collect());
            let kept = (names.iter().zip(&pairs))
                .take_while(|(name, (linked, _))| *name == linked)
                .count();
            names.truncate(kept);
            linked.push((index, pairs));
        }
    }
    let mut restated = Restatement {
        leading: Vec::new(),
        unsigned_sort: false,
    };
    for (at, name) in leading?.into_iter().enumerate() {
        let mut default: Option<&str> = None;
        for (index, pairs) in &linked {
            let value = pairs[at].1.as_str();
            let page = &shown[*index];
            let sized = (name == size_name && page.size.is_some()).then_some(value);
            match (page.sent.iter().find(|(sent, _)| *sent == name))
                .map(|(_, sent)| sent.as_str())
                .or(sized)
            {
                None if default.is_some_and(|known| known != value) => return None,
                None => default = Some(value),
                Some(sent) => {
                    restated.unsigned_sort |= sent != value && unsigned(sent) == value;
                }
            }
        }
        restated.leading.push((name, default.map(str::to_owned)));
    }
    let defaulted =
        (restated.leading.iter()).any(|(name, default)| name != size_name && default.is_some());
    defaulted.then_some(restated)
}

/// The forms of the learned relations in every spelling of their queries: repeating the call's
/// query (position first or last, every pair in name order, or the position appended; decoded or
/// form-encoded), then, where the links restate it (`restated`), restating it (decoded,
/// form-encoded or strictly encoded).
fn spelled_forms(
    prefix: &str,
    relations: Vec<PageRelation>,
    (default_size, order): (Option<u64>, QueryOrder),
    (spelling, restated): (ShownSpelling, Option<&Restatement>),
) -> Vec<CursorForm> {
    // (position_last, sorted, appended), (decoded, strict), restatement
    let repeated = [
        (false, false, false),
        (true, false, false),
        (false, true, false),
        (false, false, true),
    ]
    .into_iter()
    .flat_map(|order| [(order, (false, false), None), (order, (true, false), None)]);
    let restating = restated.into_iter().flat_map(|restated| {
        [(false, false), (true, false), (false, true)]
            .map(|encoding| ((false, false, false), encoding, Some(restated.clone())))
    });
    repeated
        .chain(restating)
        .map(
            |((position_last, sorted, appended), (decoded, strict), restated)| {
                CursorForm::PageLinks {
                    prefix: prefix.to_owned(),
                    decoded,
                    relations: relations.clone(),
                    position_last,
                    default_size,
                    link_only: None,
                    sorted,
                    first_unnamed: spelling.first_unnamed,
                    absent_null: spelling.absent_null,
                    appended,
                    order: order.clone(),
                    strict,
                    restated,
                }
            },
        )
        .collect()
}

/// Orders the relations as every page showed its keys (in key order, as every page showed them
/// so), else as first shown.
fn order_relations(relations: &mut [PageRelation], shown: &[ShownPage<'_>]) {
    let objects = || shown.iter().filter_map(|page| page.links.as_object());
    let sorted = objects().all(|object| {
        let keys: Vec<&str> = object.iter().map(|(key, _)| key).collect();
        keys.is_sorted()
    });
    if sorted {
        relations.sort_by(|a, b| a.key.cmp(&b.key));
        return;
    }
    let mut order: Vec<&str> = Vec::new();
    for object in objects() {
        for (key, _) in object.iter() {
            if !order.contains(&key) {
                order.push(key);
            }
        }
    }
    relations.sort_by_key(|relation| order.iter().position(|key| *key == relation.key));
}

/// A links member every page showed as its call's own address (the prefix, then `?` and the
/// query as sent): its key, its entry with the link `null`, the link's pointer and the prefix.
struct ShownEcho {
    key: String,
    template: Json,
    link: String,
    prefix: String,
    /// Whether it shows the prefix alone whatever the call sent.
    bare: bool,
    /// Whether it repeats the query decoded, where only one spelling fits every page.
    decoded: Option<bool>,
}

impl ShownEcho {
    /// The echo as a relation of the form.
    fn relation(self) -> PageRelation {
        PageRelation {
            key: self.key,
            step: 0,
            anchor: None,
            present: PagePresence::Always,
            clamped: false,
            template: self.template,
            link: self.link,
            leaves_unsent_size: false,
            names_first: false,
            echo: true,
            echo_bare: self.bare,
            echo_decoded: self.decoded,
        }
    }
}

/// The links members echoing the calls (see [`ShownEcho`]): shown on every page in one
/// spelling, some page's call sending a query; none when no page's call sent one.
fn echo_relations(shown: &[ShownPage<'_>]) -> Vec<ShownEcho> {
    let Some(first) = shown.first().and_then(|page| page.links.as_object()) else {
        return Vec::new();
    };
    if shown.iter().all(|page| page.sent.is_empty()) {
        return Vec::new();
    }
    first
        .iter()
        .filter_map(|(key, _)| {
            let encoded = shown_echo(shown, key, (false, false));
            let decoded = shown_echo(shown, key, (true, false));
            match (encoded, decoded) {
                (Some(echo), Some(_)) => Some(echo),
                (Some(echo), None) => Some(ShownEcho {
                    decoded: Some(false),
                    ..echo
                }),
                (None, Some(echo)) => Some(ShownEcho {
                    decoded: Some(true),
                    ..echo
                }),
                (None, None) => shown_echo(shown, key, (false, true)),
            }
        })
        .collect()
}

/// The echo every page shows under `key` spelled so (decoded or form-encoded; `bare`: the path
/// alone, whatever the call sent), if they do.
fn shown_echo(
    shown: &[ShownPage<'_>],
    key: &str,
    (decoded, bare): (bool, bool),
) -> Option<ShownEcho> {
    let mut found: Option<ShownEcho> = None;
    for page in shown {
        let entry = page.links.as_object()?.get(key)?;
        let (link, text) = entry_link(entry)??;
        let prefix = match page.sent {
            _ if bare => text,
            [] => text,
            sent => text
                .strip_suffix(&format!("?{}", spell_query(sent, decoded)))?
                .to_owned(),
        };
        let template = crate::render::with_value_at(entry.clone(), &link, Json::Null);
        match &found {
            Some(known)
                if known.prefix != prefix || known.template != template || known.link != link =>
            {
                return None;
            }
            Some(_) => {}
            None => {
                found = Some(ShownEcho {
                    key: key.to_owned(),
                    template,
                    link,
                    prefix,
                    bare,
                    decoded: None,
                });
            }
        }
    }
    found.filter(|echo| !echo.prefix.is_empty() && !echo.prefix.contains('?'))
}

/// A links object less the echo members.
fn without_keys(links: &Json, echoes: &[ShownEcho]) -> Json {
    let mut links = links.clone();
    if let Json::Object(object) = &mut links {
        for echo in echoes {
            object.remove(&echo.key);
        }
    }
    links
}

/// The pages links learning places, their links less the echoes (`stripped`), each with its
/// place: a page whose call named no page size (no default size learned) is left out when it
/// shows nothing but echoes (`echoes`: some are learned) or every relation `null` (one page
/// holding every match, whatever the default size: the learned form is checked against its
/// line like any other's); `None` when such a page shows more, a page's position is no number,
/// or no page is left.
fn placed_pages<'b>(
    shown: &[ShownPage<'b>],
    stripped: &'b [Json],
    (position, default_size): (Position<'_>, Option<u64>),
    echoes: bool,
) -> Option<(Vec<ShownPage<'b>>, Vec<PagePlace>)> {
    let mut pages = Vec::new();
    let mut places = Vec::new();
    for (page, links) in shown.iter().zip(stripped) {
        let Some(size) = page.size.or(default_size) else {
            let object = links.as_object();
            let only_echoes = echoes && object.is_some_and(|object| object.is_empty());
            let all_null = object.is_some_and(|object| {
                !object.is_empty() && object.iter().all(|(_, value)| value.is_null())
            });
            if only_echoes || all_null {
                continue;
            }
            return None;
        };
        places.push(PagePlace {
            offset: position.offset(page.position, size)?,
            size,
            matched: page.matched,
        });
        pages.push(ShownPage { links, ..*page });
    }
    (!pages.is_empty()).then_some((pages, places))
}

/// The offset and page-size parameters every link of the shown pages names though no call
/// sent them (`sent` tells), the page size given when the calls name it (`size`): of the
/// two, the one some link sets to 0 is the offset; `None` unless there are exactly two and
/// exactly one of them is ever 0 (or, the size given, one, ever 0).
pub fn link_only_names(
    shown: &[ShownPage<'_>],
    sent: impl Fn(&str) -> bool,
    size: Option<&str>,
) -> Option<(String, String)> {
    let mut names: Option<Vec<(String, bool)>> = None;
    for page in shown {
        for (_, entry) in page.links.as_object()?.iter() {
            let mut texts = Vec::new();
            link_texts(entry, "", &mut texts);
            let [(_, text)] = texts.as_slice() else {
                return None;
            };
            let here: Vec<(String, bool)> = decode_query(text.split_once('?')?.1)
                .into_iter()
                .filter(|(name, _)| !sent(name))
                .map(|(name, value)| (name, value == "0"))
                .collect();
            let known = names.get_or_insert_with(|| {
                here.iter().map(|(name, _)| (name.clone(), false)).collect()
            });
            if known.len() != here.len() || known.iter().zip(&here).any(|((a, _), (b, _))| a != b) {
                return None;
            }
            for ((_, zero), (_, here_zero)) in known.iter_mut().zip(&here) {
                *zero |= here_zero;
            }
        }
    }
    match (names?.as_slice(), size) {
        ([(a, true)], Some(size)) => Some((a.clone(), size.to_owned())),
        (_, Some(_)) => None,
        ([(a, true), (b, false)], None) => Some((a.clone(), b.clone())),
        ([(a, false), (b, true)], None) => Some((b.clone(), a.clone())),
        _ => None,
    }
}

/// The page size the links of pages whose call named none name (one value; `Some(None)` when
/// no such link named one); `None` when they disagree, or an entry holds no one link.
fn default_size(shown: &[ShownPage<'_>], size_name: &str) -> Option<Option<u64>> {
    let mut found: Option<u64> = None;
    for page in shown.iter().filter(|page| page.size.is_none()) {
        let object = page.links.as_object()?;
        for (_, entry) in object.iter() {
            let Some((_, text)) = entry_link(entry)? else {
                continue;
            };
            let query = text.split_once('?').map_or("", |(_, query)| query);
            let Some(size) = query_number(query, size_name)? else {
                continue;
            };
            if found.is_some_and(|known| known != size) {
                return None;
            }
            found = Some(size);
        }
    }
    Some(found)
}

/// The link prefix, the relations the pages showed (in first-shown order) and what they showed
/// of their spelling; `None` when an entry holds no one link (nor `null`), entries of a key
/// differ, or prefixes differ.
fn shown_relations(
    shown: &[ShownPage<'_>],
    places: &[PagePlace],
    (position, size_name): (Position<'_>, &str),
    echoes: bool,
) -> Option<ShownLinks> {
    let mut prefixes: Vec<String> = Vec::new();
    let mut relations: Vec<(String, ShownRelation)> = Vec::new();
    let mut spelling = ShownSpelling::default();
    for (index, (page, place)) in shown.iter().zip(places).enumerate() {
        let object = page
            .links
            .as_object()
            .filter(|object| echoes || !object.is_empty())?;
        for (key, entry) in object.iter() {
            let Some(parts) = link_parts(entry, (position.name(), size_name))? else {
                spelling.absent_null = true;
                continue;
            };
            let value = parts.value.map(|value| value.to_string());
            let target = position.offset(value.as_deref(), place.size)?;
            spelling.first_unnamed |= parts.value.is_none();
            if !prefixes.contains(&parts.prefix) {
                prefixes.push(parts.prefix);
            }
            let unsent_size = page.size.is_none().then_some(parts.names_size);
            let named_first = (target == 0).then_some(parts.value.is_some());
            match relations.iter_mut().find(|(known, _)| known == key) {
                Some((_, known))
                    if known.template != parts.template || known.link != parts.link =>
                {
                    return None;
                }
                Some((_, known)) => {
                    known.targets.push((index, target));
                    known.names_unsent_size = agreeing(known.names_unsent_size, unsent_size)?;
                    known.named_first = agreeing(known.named_first, named_first)?;
                }
                None => relations.push((
                    key.to_owned(),
                    ShownRelation {
                        template: parts.template,
                        link: parts.link,
                        targets: vec![(index, target)],
                        names_unsent_size: unsent_size,
                        named_first,
                    },
                )),
            }
        }
    }
    let [prefix] = prefixes.as_slice() else {
        return None;
    };
    Some((prefix.clone(), relations, spelling))
}

/// Two pages' evidence of one flag merged: `None` when they disagree.
fn agreeing(known: Option<bool>, here: Option<bool>) -> Option<Option<bool>> {
    match (known, here) {
        (Some(a), Some(b)) if a != b => None,
        (known, here) => Some(known.or(here)),
    }
}

/// The anchored pages a relation may name, in the order learning tries them: the first page,
/// then, where the recorded pages do not tell the two apart (no page matched a whole number
/// of pages), the last page as the position's unit names it: a page number the page count's
/// page, an offset the whole-page offset.
fn anchors(position: Position<'_>) -> [Option<PageAnchor>; 3] {
    match position {
        Position::Page { .. } => [
            Some(PageAnchor::First),
            Some(PageAnchor::LastPage),
            Some(PageAnchor::LastWhole),
        ],
        Position::Offset { .. } => [
            Some(PageAnchor::First),
            Some(PageAnchor::LastWhole),
            Some(PageAnchor::LastPage),
        ],
    }
}

/// A relation's learned page and presence: the first of its candidate pages
/// ([`candidate_pages`]) naming the page every link named for which a presence tells every page
/// showing the links object whether it shows the relation; and whether it names the first
/// item's position where the form leaves it out.
fn learn_relation(
    key: String,
    shown: ShownRelation,
    places: &[PagePlace],
    (position, spelling): (Position<'_>, ShownSpelling),
) -> Option<PageRelation> {
    let step = shown_step(&shown, places);
    let relation = PageRelation {
        key,
        step: step.unwrap_or_default(),
        anchor: None,
        present: PagePresence::Exists,
        clamped: false,
        template: shown.template.clone(),
        link: shown.link.clone(),
        leaves_unsent_size: shown.names_unsent_size == Some(false),
        names_first: spelling.first_unnamed && shown.named_first == Some(true),
        echo: false,
        echo_bare: false,
        echo_decoded: None,
    };
    let names_every = |relation: &PageRelation| {
        shown
            .targets
            .iter()
            .all(|(index, target)| places[*index].target(relation) == Some(*target))
    };
    let shown_on = |index: usize| shown.targets.iter().any(|(at, _)| *at == index);
    candidate_pages(position, step)
        .into_iter()
        .map(|(anchor, clamped)| PageRelation {
            anchor,
            clamped,
            ..relation.clone()
        })
        .filter(|candidate| names_every(candidate))
        .find_map(|mut candidate| {
            candidate.present = PagePresence::ALL.into_iter().find(|presence| {
                places.iter().enumerate().all(|(index, place)| {
                    let present = place
                        .target(&candidate)
                        .is_some_and(|target| place.holds(*presence, target));
                    present == shown_on(index)
                })
            })?;
            Some(candidate)
        })
}

/// The step from the call's page the first link naming a whole number of pages from its
/// call's page named.
fn shown_step(shown: &ShownRelation, places: &[PagePlace]) -> Option<i64> {
    shown.targets.iter().find_map(|(index, target)| {
        let place = places[*index];
        let difference = i64::try_from(*target).ok()? - i64::try_from(place.offset).ok()?;
        let size = i64::try_from(place.size).ok()?.max(1);
        (difference % size == 0).then_some(difference / size)
    })
}

/// The pages a relation may name, in the order learning tries them (each an anchor, or none
/// with whether the step stops at the first item): the anchored pages ([`anchors`]), then the
/// step from the call's page, then a step back stopping at the first item.
fn candidate_pages(position: Position<'_>, step: Option<i64>) -> Vec<(Option<PageAnchor>, bool)> {
    let anchored = anchors(position).into_iter().map(|anchor| (anchor, false));
    let stepped = step.map(|_| (None, false));
    let clamped = step.filter(|step| *step < 0).map(|_| (None, true));
    anchored.chain(stepped).chain(clamped).collect()
}

/// The relations one learned relation might have been, in the order learning tries them: each
/// page it may name from its step ([`candidate_pages`]) with each presence, its entry, key and
/// spelling kept. Lists sharing one links envelope choose among them the first every list's
/// recorded pages agree with (`derive::shared_links`).
pub fn relation_variants(relation: &PageRelation, position: Position<'_>) -> Vec<PageRelation> {
    if relation.echo {
        return vec![relation.clone()];
    }
    candidate_pages(position, Some(relation.step))
        .into_iter()
        .flat_map(|(anchor, clamped)| {
            PagePresence::ALL
                .into_iter()
                .map(move |present| PageRelation {
                    anchor,
                    clamped,
                    present,
                    ..relation.clone()
                })
        })
        .collect()
}

/// A links entry's parts (see [`link_parts`]).
struct LinkParts {
    /// The text before the link's query (the whole text when it has none).
    prefix: String,
    /// The entry with the link `null`.
    template: Json,
    /// The link's pointer within the entry.
    link: String,
    /// The value its query gives the position parameter, when it names it.
    value: Option<u64>,
    /// Whether its query names the page size.
    names_size: bool,
}

/// A links entry's parts: `Some(None)` for a `null` entry; `None` when the entry holds no one
/// link text, or its query gives the position or the page size no number.
fn link_parts(entry: &Json, (name, size_name): (&str, &str)) -> Option<Option<LinkParts>> {
    let Some((link, text)) = entry_link(entry)? else {
        return Some(None);
    };
    let (prefix, query) = text.split_once('?').unwrap_or((&text, ""));
    let value = query_number(query, name)?;
    let names_size = query_number(query, size_name)?.is_some();
    let template = crate::render::with_value_at(entry.clone(), &link, Json::Null);
    Some(Some(LinkParts {
        prefix: prefix.to_owned(),
        template,
        link,
        value,
        names_size,
    }))
}

/// A links entry's one link, its pointer and text (a text with no query counts only as the
/// whole entry); `Some(None)` for `null`; `None` when it holds no one link.
fn entry_link(entry: &Json) -> Option<Option<(String, String)>> {
    match entry {
        Json::Null => Some(None),
        Json::String(text) => Some(Some((String::new(), text.to_string()))),
        _ => {
            let mut texts = Vec::new();
            link_texts(entry, "", &mut texts);
            match texts.as_slice() {
                [(link, text)] => Some(Some((link.clone(), text.clone()))),
                _ => None,
            }
        }
    }
}

/// The string leaves of a value holding a query (`?`), with their pointers.
fn link_texts(value: &Json, at: &str, found: &mut Vec<(String, String)>) {
    match value {
        Json::String(text) if text.contains('?') => found.push((at.to_owned(), text.to_string())),
        Json::Object(object) => {
            for (key, member) in object.iter() {
                let pointer = format!("{at}/{}", rea_plugin_api::json::escape_pointer_segment(key));
                link_texts(member, &pointer, found);
            }
        }
        Json::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                link_texts(item, &format!("{at}/{index}"), found);
            }
        }
        _ => {}
    }
}

/// The number a link's query gives the parameter `name` (its name compared decoded):
/// `Some(None)` when it names no such parameter, `None` when its value is no number.
fn query_number(query: &str, name: &str) -> Option<Option<u64>> {
    match decode_query(query)
        .into_iter()
        .find(|(decoded, _)| decoded == name)
    {
        Some((_, value)) => value.parse().ok().map(Some),
        None => Some(None),
    }
}

/// The forms a member holding `value` in one line may take, most specific first.
pub fn candidate_forms(value: &Json) -> Vec<CursorForm> {
    let mut forms = vec![CursorForm::Next, CursorForm::Last];
    if let Some((prefix, _)) = value.as_str().and_then(|text| text.split_once('?')) {
        forms.insert(
            0,
            CursorForm::NextLink {
                prefix: prefix.to_owned(),
            },
        );
    }
    forms
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::pairs;

    fn object(text: &str) -> Object {
        match rea_plugin_api::json::parse(text.as_bytes()).expect("json") {
            Json::Object(object) => object,
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_page_end_names_the_last_member_by_the_cursor() {
        let model = QueryModel::of_roles(&[
            ("_size", QueryRole::PageSize),
            ("_sort_desc", QueryRole::Sort),
            ("_next", QueryRole::After { key: "id".into() }),
        ]);
        let last = object(r#"{"id": 4, "title": "Renew TLS", "priority": 3}"#);
        let sent = pairs(&[("_sort_desc", "priority"), ("_size", "5")]);
        let expanded = pairs(&[("_sort_desc", "-priority"), ("_size", "5")]);
        let mut end = PageEnd {
            model: &model,
            expanded: &expanded,
            sent: &sent,
            last: Some(&last),
            remaining: true,
            matched: 9,
        };
        assert_eq!(end.value(&CursorForm::Next), Some(Json::from("3,4")));
        let link = CursorForm::NextLink {
            prefix: "http://h/t.json".into(),
        };
        assert_eq!(
            end.value(&link),
            Some(Json::from(
                "http://h/t.json?_size=5&_next=3%2C4&_sort_desc=priority"
            ))
        );
        end.remaining = false;
        assert_eq!(end.value(&CursorForm::Next), Some(Json::Null));
        assert_eq!(end.value(&link), Some(Json::Null));
        assert_eq!(end.value(&CursorForm::Last), Some(Json::from("3,4")));
        // Without a sort the last position is the key's own value; a text keeps its spaces as `+`.
        let unsorted: Vec<(String, String)> = Vec::new();
        end.expanded = &unsorted;
        end.sent = &unsorted;
        assert_eq!(end.value(&CursorForm::Last), Some(Json::from(4i64)));
        let titled = QueryModel::of_roles(&[(
            "_next",
            QueryRole::After {
                key: "title".into(),
            },
        )]);
        end.model = &titled;
        end.remaining = true;
        assert_eq!(end.value(&CursorForm::Next), Some(Json::from("Renew+TLS")));
        // Without a cursor parameter nothing is minted.
        let none = QueryModel::of_roles(&[]);
        end.model = &none;
        assert_eq!(end.value(&CursorForm::Next), None);
    }

    /// A call sending `sent` (no expression to split) whose page leaves matches out.
    fn first_call<'a>(
        model: &'a QueryModel,
        sent: &'a [(String, String)],
        matched: usize,
    ) -> PageEnd<'a> {
        PageEnd {
            model,
            expanded: sent,
            sent,
            last: None,
            remaining: true,
            matched,
        }
    }

    fn links_form(decoded: bool) -> CursorForm {
        let relation = |key: &str, step: i64| PageRelation {
            key: key.to_owned(),
            step,
            anchor: None,
            present: PagePresence::Exists,
            clamped: false,
            template: rea_plugin_api::json::parse(
                format!(r#"[{{"rel": "{key}", "uri": null}}]"#).as_bytes(),
            )
            .expect("json"),
            link: "/0/uri".to_owned(),
            leaves_unsent_size: false,
            names_first: false,
            echo: false,
            echo_bare: false,
            echo_decoded: None,
        };
        CursorForm::PageLinks {
            prefix: "http://h/issue".into(),
            decoded,
            relations: vec![
                relation("next", 1),
                relation("prev", -1),
                relation("self", 0),
            ],
            position_last: false,
            default_size: None,
            link_only: None,
            sorted: false,
            first_unnamed: false,
            absent_null: false,
            appended: false,
            order: QueryOrder::default(),
            strict: false,
            restated: None,
        }
    }

    fn links_of(minted: Option<Option<Json>>) -> Vec<(String, String)> {
        let Some(Some(Json::Object(links))) = minted else {
            panic!("links: {minted:?}");
        };
        links
            .iter()
            .map(|(key, entry)| {
                let link = entry
                    .pointer("/0/uri")
                    .and_then(Json::as_str)
                    .expect("a link");
                (key.to_owned(), link.to_owned())
            })
            .collect()
    }

    #[test]
    fn page_links_repeat_the_query_with_the_page_first_where_the_page_exists() {
        let model = QueryModel::of_roles(&[
            ("@page_index", QueryRole::Page { base: 1 }),
            ("@page_size", QueryRole::PageSize),
            ("@sort", QueryRole::Sort),
        ]);
        let sent = pairs(&[("@sort", "-id"), ("@page_size", "3"), ("@fields", "a,b")]);
        let mut end = first_call(&model, &sent, 6);
        // The first page (no page named): self and next, the page parameter first, decoded.
        assert_eq!(
            links_of(end.minted(&links_form(true))),
            vec![
                (
                    "next".to_owned(),
                    "http://h/issue?@page_index=2&@sort=-id&@page_size=3&@fields=a,b".to_owned()
                ),
                (
                    "self".to_owned(),
                    "http://h/issue?@page_index=1&@sort=-id&@page_size=3&@fields=a,b".to_owned()
                ),
            ]
        );
        // The last page: prev and self; form-encoded when so learned.
        let last = pairs(&[("@page_index", "2"), ("@page_size", "3")]);
        end.expanded = &last;
        end.sent = &last;
        let keys: Vec<String> = links_of(end.minted(&links_form(false)))
            .into_iter()
            .map(|(key, link)| format!("{key} {link}"))
            .collect();
        assert_eq!(
            keys,
            vec![
                "prev http://h/issue?%40page_index=1&%40page_size=3",
                "self http://h/issue?%40page_index=2&%40page_size=3"
            ]
        );
        // A page past the end still names the one before it.
        let past = pairs(&[("@page_size", "2"), ("@page_index", "5")]);
        end.expanded = &past;
        end.sent = &past;
        let keys: Vec<String> = links_of(end.minted(&links_form(true)))
            .into_iter()
            .map(|(key, _)| key)
            .collect();
        assert_eq!(keys, vec!["prev", "self"]);
        // No page size named: no links object; a page that is no number: not told.
        let unsized_call = pairs(&[("@sort", "id")]);
        end.expanded = &unsized_call;
        assert_eq!(end.minted(&links_form(true)), Some(None));
        let wrong = pairs(&[("@page_size", "2"), ("@page_index", "x")]);
        end.expanded = &wrong;
        assert_eq!(end.minted(&links_form(true)), None);
    }

    /// A page of the `@page_index` tests: its links, its page and 2 a page of 6 matched.
    fn numbered<'a>(links: &'a Json, page: &'a str) -> ShownPage<'a> {
        ShownPage {
            links,
            position: Some(page),
            size: Some(2),
            matched: 6,
            sent: &[],
        }
    }

    const INDEX: Position<'static> = Position::Page {
        name: "@page_index",
        base: 1,
    };

    #[test]
    fn page_link_forms_merge_the_relations_every_page_showed() {
        let parse = |text: &str| rea_plugin_api::json::parse(text.as_bytes()).expect("json");
        let first = parse(
            r#"{"next": [{"rel": "next", "uri": "http://h/i?@page_index=2&@page_size=2"}],
                "self": [{"rel": "self", "uri": "http://h/i?@page_index=1&@page_size=2"}]}"#,
        );
        let last = parse(
            r#"{"prev": [{"rel": "prev", "uri": "http://h/i?@page_index=2&@page_size=2"}],
                "self": [{"rel": "self", "uri": "http://h/i?@page_index=3&@page_size=2"}]}"#,
        );
        let pages = [numbered(&first, "1"), numbered(&last, "3")];
        let forms = page_link_forms(&pages, INDEX, "@page_size");
        // Position first or last, every pair in name order, or the position appended; decoded or
        // form-encoded.
        assert_eq!(forms.len(), 8);
        let CursorForm::PageLinks {
            prefix,
            decoded,
            relations,
            position_last,
            default_size,
            ..
        } = &forms[0]
        else {
            panic!("{forms:?}");
        };
        assert_eq!(
            (prefix.as_str(), *decoded, *position_last),
            ("http://h/i", false, false)
        );
        assert_eq!(*default_size, None);
        let steps: Vec<(&str, i64, Option<PageAnchor>, PagePresence)> = relations
            .iter()
            .map(|relation| {
                (
                    relation.key.as_str(),
                    relation.step,
                    relation.anchor,
                    relation.present,
                )
            })
            .collect();
        assert_eq!(
            steps,
            vec![
                ("next", 1, None, PagePresence::Exists),
                ("prev", -1, None, PagePresence::Exists),
                ("self", 0, None, PagePresence::Exists)
            ]
        );
        assert_eq!(relations[0].link, "/0/uri");
        // A relation whose step differs between pages: no form.
        let shifted =
            parse(r#"{"self": [{"rel": "self", "uri": "http://h/i?@page_index=2&@page_size=2"}]}"#);
        let pages = [numbered(&first, "1"), numbered(&shifted, "3")];
        assert!(page_link_forms(&pages, INDEX, "@page_size").is_empty());
        // A link without the page names the first page, leaving its number out.
        let pageless = parse(r#"{"self": "http://h/i?@page_size=2"}"#);
        let forms = page_link_forms(&[numbered(&pageless, "1")], INDEX, "@page_size");
        assert!(matches!(
            forms.first(),
            Some(CursorForm::PageLinks {
                first_unnamed: true,
                ..
            })
        ));
    }

    /// An offset page of the `page[offset]` tests.
    fn offset_page<'a>(
        links: &'a Json,
        offset: Option<&'a str>,
        size: Option<u64>,
        matched: u64,
    ) -> ShownPage<'a> {
        ShownPage {
            links,
            position: offset,
            size,
            matched,
            sent: &[],
        }
    }

    /// The form learned from offset pages: no size named (a default of 250), then 9 matched 4
    /// a page from offsets 0 and 4; the position and size follow the call's arguments.
    fn offset_form() -> CursorForm {
        let parse = |text: &str| rea_plugin_api::json::parse(text.as_bytes()).expect("json");
        let plain = parse(r#"{"self": "/t/?s=a&o=0&l=250"}"#);
        let first = parse(
            r#"{"last": "/t/?s=a&o=8&l=4", "next": "/t/?s=a&o=4&l=4", "self": "/t/?s=a&o=0&l=4"}"#,
        );
        let second = parse(
            r#"{"first": "/t/?s=a&o=0&l=4", "last": "/t/?s=a&o=8&l=4", "self": "/t/?s=a&o=4&l=4"}"#,
        );
        let offset = Position::Offset { name: "o" };
        let pages = [
            offset_page(&plain, None, None, 9),
            offset_page(&first, None, Some(4), 9),
            offset_page(&second, Some("4"), Some(4), 9),
        ];
        page_link_forms(&pages, offset, "l")
            .into_iter()
            .find(|form| {
                matches!(
                    form,
                    CursorForm::PageLinks {
                        position_last: true,
                        decoded: true,
                        ..
                    }
                )
            })
            .expect("a form")
    }

    /// Pages whose links re-encode the whole query in name order, leave the offset out at the
    /// first item and the size out of `first` when the call sent none, and show a relation the
    /// page lacks as `null`: a plain call (10 matched), then pages of 4 at offsets 0 and 4.
    fn sorted_link_pages(parse: impl Fn(&str) -> Json) -> [Json; 3] {
        [
            parse(
                r#"{"first": "http://h/b/", "last": "http://h/b/?page%5Blimit%5D=50",
                    "next": null, "prev": null}"#,
            ),
            parse(
                r#"{"first": "http://h/b/?page%5Blimit%5D=4&sort=title",
                    "last": "http://h/b/?page%5Blimit%5D=4&page%5Boffset%5D=8&sort=title",
                    "next": "http://h/b/?page%5Blimit%5D=4&page%5Boffset%5D=4&sort=title",
                    "prev": null}"#,
            ),
            parse(
                r#"{"first": "http://h/b/?page%5Blimit%5D=4&sort=title",
                    "last": "http://h/b/?page%5Blimit%5D=4&page%5Boffset%5D=8&sort=title",
                    "next": "http://h/b/?page%5Blimit%5D=4&page%5Boffset%5D=8&sort=title",
                    "prev": "http://h/b/?page%5Blimit%5D=4&sort=title"}"#,
            ),
        ]
    }

    #[test]
    fn links_in_name_order_leave_the_first_offset_out_and_show_absent_relations_as_null() {
        let parse = |text: &str| rea_plugin_api::json::parse(text.as_bytes()).expect("json");
        let [plain, first, second] = sorted_link_pages(parse);
        let offset = Position::Offset {
            name: "page[offset]",
        };
        let pages = [
            offset_page(&plain, None, None, 10),
            offset_page(&first, None, Some(4), 10),
            offset_page(&second, Some("4"), Some(4), 10),
        ];
        let forms = page_link_forms(&pages, offset, "page[limit]");
        let form = forms
            .iter()
            .find(|form| {
                matches!(
                    form,
                    CursorForm::PageLinks {
                        sorted: true,
                        decoded: false,
                        ..
                    }
                )
            })
            .expect("a form in name order");
        let CursorForm::PageLinks {
            relations,
            default_size,
            first_unnamed,
            absent_null,
            ..
        } = form
        else {
            unreachable!()
        };
        assert_eq!(*default_size, Some(50));
        assert!(*first_unnamed && *absent_null);
        let sizes: Vec<(&str, bool)> = relations
            .iter()
            .map(|relation| (relation.key.as_str(), relation.leaves_unsent_size))
            .collect();
        assert_eq!(
            sizes,
            [
                ("first", true),
                ("last", false),
                ("next", false),
                ("prev", false)
            ]
        );
        // Minted for a page of 3 from offset 3 of 7 matched, the call's pairs in another order.
        let model = QueryModel::of_roles(&[
            ("page[offset]", QueryRole::Offset),
            ("page[limit]", QueryRole::PageSize),
            ("filter[status]", QueryRole::filter("status", "eq")),
        ]);
        let sent = pairs(&[
            ("page[offset]", "3"),
            ("filter[status]", "lost"),
            ("page[limit]", "3"),
        ]);
        let end = first_call(&model, &sent, 7);
        let Some(Some(Json::Object(links))) = end.minted(form) else {
            panic!("links");
        };
        let q = "http://h/b/?filter%5Bstatus%5D=lost&page%5Blimit%5D=3";
        let text = |key: &str| links.get(key).cloned().expect("a relation");
        assert_eq!(text("first"), Json::from(q));
        assert_eq!(text("last"), Json::from(format!("{q}&page%5Boffset%5D=6")));
        assert_eq!(text("next"), Json::from(format!("{q}&page%5Boffset%5D=6")));
        assert_eq!(text("prev"), Json::from(q));
        // A call naming nothing: `first` is the prefix alone, the others null or sized.
        let none = pairs(&[]);
        let end = first_call(&model, &none, 7);
        let Some(Some(Json::Object(links))) = end.minted(form) else {
            panic!("links");
        };
        let shown: Vec<(String, Json)> = links
            .iter()
            .map(|(key, value)| (key.to_owned(), value.clone()))
            .collect();
        assert_eq!(
            shown,
            [
                ("first".to_owned(), Json::from("http://h/b/")),
                (
                    "last".to_owned(),
                    Json::from("http://h/b/?page%5Blimit%5D=50")
                ),
                ("next".to_owned(), Json::Null),
                ("prev".to_owned(), Json::Null),
            ]
        );
    }

    #[test]
    fn offset_links_learn_anchored_pages_their_presence_and_a_default_size() {
        let CursorForm::PageLinks {
            relations,
            default_size,
            ..
        } = offset_form()
        else {
            unreachable!()
        };
        assert_eq!(default_size, Some(250));
        let learned: Vec<(&str, Option<PageAnchor>, PagePresence)> = relations
            .iter()
            .map(|relation| (relation.key.as_str(), relation.anchor, relation.present))
            .collect();
        assert_eq!(
            learned,
            vec![
                (
                    "first",
                    Some(PageAnchor::First),
                    PagePresence::PageBeforeCall
                ),
                ("last", Some(PageAnchor::LastWhole), PagePresence::AfterCall),
                ("next", None, PagePresence::BeforeLastWhole),
                ("self", None, PagePresence::Exists),
            ]
        );
    }

    #[test]
    fn offset_links_are_minted_for_pages_the_build_never_read() {
        let form = offset_form();
        // Offset 4 of 2 a page, 9 matched.
        let model = QueryModel::of_roles(&[
            ("o", QueryRole::Offset),
            ("l", QueryRole::PageSize),
            ("s", QueryRole::Sort),
        ]);
        let sent = pairs(&[("l", "2"), ("o", "4"), ("s", "a")]);
        let mut end = first_call(&model, &sent, 9);
        let minted = |end: &PageEnd<'_>| match end.minted(&form) {
            Some(Some(Json::Object(links))) => links
                .iter()
                .map(|(key, link)| format!("{key} {}", link.as_str().unwrap_or_default()))
                .collect::<Vec<_>>(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            minted(&end),
            vec![
                "first /t/?s=a&o=0&l=2",
                "last /t/?s=a&o=8&l=2",
                "next /t/?s=a&o=6&l=2",
                "self /t/?s=a&o=4&l=2"
            ]
        );
        // No size named: the default size's one page, linking itself only.
        let plain_call = pairs(&[("s", "a")]);
        end.expanded = &plain_call;
        end.sent = &plain_call;
        assert_eq!(minted(&end), vec!["self /t/?s=a&o=0&l=250"]);
    }

    #[test]
    fn link_only_names_tell_the_offset_from_the_size_by_a_zero() {
        let parse = |text: &str| rea_plugin_api::json::parse(text.as_bytes()).expect("json");
        let plain = parse(r#"{"self": "/t/?f=a&o=0&l=250"}"#);
        let sized = parse(r#"{"next": "/t/?o=2&l=2", "self": "/t/?o=0&l=2"}"#);
        let sent = |name: &str| name == "f";
        let pages = [offset_page(&plain, None, None, 3)];
        assert_eq!(
            link_only_names(&pages, sent, None),
            Some(("o".to_owned(), "l".to_owned()))
        );
        // The size given: the one name left is the offset.
        let sent_sized = |name: &str| name == "f" || name == "l";
        let pages = [
            offset_page(&plain, None, None, 3),
            offset_page(&sized, None, Some(2), 3),
        ];
        assert_eq!(
            link_only_names(&pages, sent_sized, Some("l")),
            Some(("o".to_owned(), "l".to_owned()))
        );
        // Names differing between links, or no zero: none.
        let other = parse(r#"{"self": "/t/?p=0&l=250"}"#);
        let pages = [
            offset_page(&plain, None, None, 3),
            offset_page(&other, None, None, 3),
        ];
        assert_eq!(link_only_names(&pages, sent, None), None);
        let nonzero = parse(r#"{"self": "/t/?o=5&l=250"}"#);
        assert_eq!(
            link_only_names(&[offset_page(&nonzero, None, None, 3)], sent, None),
            None
        );
    }

    /// Page-number pages of 2 of 5 matched whose links append `page[number]` after the call's
    /// query (`first` naming no page, `prev` naming page 1) beside a `self` echoing the call,
    /// and a call naming no size showing the echo alone.
    fn echoed_pages(parse: impl Fn(&str) -> Json) -> [Json; 4] {
        let q = "http://h/t?sort=title&page%5Bsize%5D=2";
        let page = |number: u64| format!("{q}&page%5Bnumber%5D={number}");
        [
            parse(r#"{"self": "http://h/t?filter%5Bstatus%5D=todo"}"#),
            parse(&format!(
                r#"{{"first": "{q}", "last": "{}", "next": "{}", "self": "{q}"}}"#,
                page(3),
                page(2)
            )),
            parse(&format!(
                r#"{{"first": "{q}", "last": "{}", "next": "{}", "prev": "{}", "self": "{}"}}"#,
                page(3),
                page(3),
                page(1),
                page(2)
            )),
            parse(&format!(
                r#"{{"first": "{q}", "last": "{}", "prev": "{}", "self": "{}"}}"#,
                page(3),
                page(2),
                page(3)
            )),
        ]
    }

    #[test]
    fn page_number_links_beside_an_echo_are_learned_and_minted_in_the_recorded_order() {
        let parse = |text: &str| rea_plugin_api::json::parse(text.as_bytes()).expect("json");
        let links = echoed_pages(parse);
        let unsized_call = pairs(&[("filter[status]", "todo")]);
        let sized = pairs(&[("sort", "title"), ("page[size]", "2")]);
        let second = pairs(&[
            ("sort", "title"),
            ("page[size]", "2"),
            ("page[number]", "2"),
        ]);
        let third = pairs(&[
            ("sort", "title"),
            ("page[size]", "2"),
            ("page[number]", "3"),
        ]);
        let shown = |index: usize, position, size, sent| ShownPage {
            links: &links[index],
            position,
            size,
            matched: 5,
            sent,
        };
        let pages = [
            shown(0, None, None, unsized_call.as_slice()),
            shown(1, None, Some(2), sized.as_slice()),
            shown(2, Some("2"), Some(2), second.as_slice()),
            shown(3, Some("3"), Some(2), third.as_slice()),
        ];
        let position = Position::Page {
            name: "page[number]",
            base: 1,
        };
        let forms = page_link_forms(&pages, position, "page[size]");
        let form = forms
            .iter()
            .find(|form| {
                matches!(
                    form,
                    CursorForm::PageLinks {
                        appended: true,
                        decoded: false,
                        ..
                    }
                )
            })
            .expect("an appended form");
        let CursorForm::PageLinks { relations, .. } = form else {
            unreachable!()
        };
        let learned: Vec<(&str, Option<PageAnchor>, bool, bool)> = relations
            .iter()
            .map(|r| (r.key.as_str(), r.anchor, r.names_first, r.echo))
            .collect();
        // No page matched a whole number of pages: a page number's last is the page count's.
        assert_eq!(
            learned,
            [
                ("first", Some(PageAnchor::First), false, false),
                ("last", Some(PageAnchor::LastPage), false, false),
                ("next", None, false, false),
                ("prev", None, true, false),
                ("self", None, false, true),
            ]
        );
        // Page 2 of 3 of 9 matched (the last page whole), the arguments in name order and no
        // caller's order known: handed on in the recorded order (`query_order::repeated`), the
        // links repeat the query so, `page[number]` last.
        let mut model = QueryModel::of_roles(&[
            ("page[number]", QueryRole::Page { base: 1 }),
            ("page[size]", QueryRole::PageSize),
            ("sort", QueryRole::Sort),
            ("filter[status]", QueryRole::filter("status", "in")),
        ]);
        let sent = pairs(&[
            ("page[number]", "2"),
            ("page[size]", "3"),
            ("sort", "title"),
        ]);
        model.cursor_members.push(crate::model::CursorMember {
            pointer: "/links".to_owned(),
            form: form.clone(),
            flat: false,
        });
        let arrived = crate::query_order::repeated(Some(&model), sent.clone(), None);
        let end = first_call(&model, &arrived, 9);
        let q = "http://h/t?sort=title&page%5Bsize%5D=3";
        let minted: Vec<String> = match end.minted(form) {
            Some(Some(Json::Object(links))) => links
                .iter()
                .map(|(key, link)| format!("{key} {}", link.as_str().unwrap_or_default()))
                .collect(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            minted,
            [
                format!("first {q}"),
                format!("last {q}&page%5Bnumber%5D=3"),
                format!("next {q}&page%5Bnumber%5D=3"),
                format!("prev {q}&page%5Bnumber%5D=1"),
                format!("self {q}&page%5Bnumber%5D=2"),
            ]
        );
        // The pages' calls show the links repeating a call as sent (the page number follows
        // `page[size]` in no order the other calls teach): a caller's own order is kept, by the
        // echo as it is, by the page links with the position appended as the form spells it.
        let caller = ["page[size]", "page[number]", "sort"].map(str::to_owned);
        let ordered = crate::query_order::repeated(Some(&model), sent.clone(), Some(&caller));
        let end = first_call(&model, &ordered, 9);
        let Some(Some(links)) = end.minted(form) else {
            panic!("links")
        };
        assert_eq!(
            links.pointer("/self").and_then(Json::as_str),
            Some("http://h/t?page%5Bsize%5D=3&page%5Bnumber%5D=2&sort=title")
        );
        assert_eq!(
            links.pointer("/next").and_then(Json::as_str),
            Some("http://h/t?page%5Bsize%5D=3&sort=title&page%5Bnumber%5D=3")
        );
        // A call naming no page size: the echo alone.
        let plain = pairs(&[("filter[status]", "done")]);
        let end = first_call(&model, &plain, 9);
        let echo = parse(r#"{"self": "http://h/t?filter%5Bstatus%5D=done"}"#);
        assert_eq!(end.minted(form), Some(Some(echo)));
    }

    #[test]
    fn a_member_learned_as_a_page_is_no_echo() {
        // Every call sent its offset and size, so `self` both echoes each call and names the
        // call's page: learned as the page (which a call naming no offset still gets right).
        let parse = |text: &str| rea_plugin_api::json::parse(text.as_bytes()).expect("json");
        let first = parse(r#"{"next": "/t/?o=4&l=4", "self": "/t/?o=0&l=4"}"#);
        let second = parse(r#"{"prev": "/t/?o=0&l=4", "self": "/t/?o=4&l=4"}"#);
        let (a, b) = (
            pairs(&[("o", "0"), ("l", "4")]),
            pairs(&[("o", "4"), ("l", "4")]),
        );
        let page = |links, position, sent| ShownPage {
            links,
            position: Some(position),
            size: Some(4),
            matched: 8,
            sent,
        };
        let pages = [
            page(&first, "0", a.as_slice()),
            page(&second, "4", b.as_slice()),
        ];
        let forms = page_link_forms(&pages, Position::Offset { name: "o" }, "l");
        let Some(CursorForm::PageLinks { relations, .. }) = forms.first() else {
            panic!("{forms:?}")
        };
        let self_relation = relations
            .iter()
            .find(|relation| relation.key == "self")
            .expect("self");
        assert!(!self_relation.echo, "{self_relation:?}");
        assert_eq!(self_relation.step, 0);
    }

    #[test]
    fn a_step_back_stopping_at_the_first_item_is_learned_and_minted() {
        let parse = |text: &str| rea_plugin_api::json::parse(text.as_bytes()).expect("json");
        // Pages of 2 of 6 matched from offsets 0, 4 and 1: `previous` names offset 2 from 4
        // (no anchor) and the first page from 1 (no step of one page back); and a call naming
        // no size, no default size learned, whose one page lists its 3 matches, links none.
        let whole = parse(r#"{"next": null, "previous": null}"#);
        let first = parse(r#"{"next": "http://h/p/?limit=2&offset=2", "previous": null}"#);
        let last = parse(r#"{"next": null, "previous": "http://h/p/?limit=2&offset=2"}"#);
        let between =
            parse(r#"{"next": "http://h/p/?limit=2&offset=3", "previous": "http://h/p/?limit=2"}"#);
        let pages = [
            offset_page(&first, None, Some(2), 6),
            offset_page(&last, Some("4"), Some(2), 6),
            offset_page(&between, Some("1"), Some(2), 6),
            offset_page(&whole, None, None, 3),
        ];
        let forms = page_link_forms(&pages, Position::Offset { name: "offset" }, "limit");
        let form = forms
            .iter()
            .find(|form| matches!(form, CursorForm::PageLinks { sorted: true, .. }))
            .expect("a links form in name order");
        let CursorForm::PageLinks { relations, .. } = form else {
            unreachable!()
        };
        let learned: Vec<(&str, Option<PageAnchor>, i64, bool, PagePresence)> = relations
            .iter()
            .map(|relation| {
                let key = relation.key.as_str();
                let (anchor, step) = (relation.anchor, relation.step);
                (key, anchor, step, relation.clamped, relation.present)
            })
            .collect();
        assert_eq!(
            learned,
            [
                ("next", None, 1, false, PagePresence::Exists),
                ("previous", None, -1, true, PagePresence::AfterFirst)
            ]
        );
        // Offset 1 of 2 a page, 5 matched: `previous` names the first page, its offset left out.
        let model = QueryModel::of_roles(&[
            ("offset", QueryRole::Offset),
            ("limit", QueryRole::PageSize),
        ]);
        let sent = pairs(&[("limit", "2"), ("offset", "1")]);
        let end = first_call(&model, &sent, 5);
        let Some(Some(Json::Object(links))) = end.minted(form) else {
            panic!("links");
        };
        let text = |key: &str| links.get(key).cloned().expect("a relation");
        assert_eq!(text("next"), Json::from("http://h/p/?limit=2&offset=3"));
        assert_eq!(text("previous"), Json::from("http://h/p/?limit=2"));
    }

    #[test]
    fn an_echo_spells_the_call_as_a_client_sends_it() {
        // Brackets, colons, commas and `*` stay as decoded; what no request's text holds as it
        // is (a space, `%`, `&` inside a value, non-ASCII) is percent-encoded.
        let sent = pairs(&[
            ("filter[assignee.name:eq]", "Carol Chen"),
            ("filter[title:like]", "*50%*"),
            ("q", "a&b=c+d"),
            ("sort", "-priority,title"),
            ("name", "Zoë"),
        ]);
        assert_eq!(
            spell_query(&sent, true),
            "filter[assignee.name:eq]=Carol%20Chen&filter[title:like]=*50%25*&q=a%26b%3Dc%2Bd\
             &sort=-priority,title&name=Zo%C3%AB"
        );
        assert_eq!(
            spell_query(&pairs(&[("q", "a b")]), false),
            "q=a+b",
            "form-encoded"
        );
    }

    #[test]
    fn a_bare_echo_spells_the_prefix_path_alone() {
        assert_eq!(path_of("http://127.0.0.1:18893/api/task"), "/api/task");
        assert_eq!(path_of("http://127.0.0.1:18893"), "");
        assert_eq!(path_of("/api/task"), "/api/task");
    }

    /// Pages whose links restate the call's query: the page size and the sort first (the sort's
    /// descending marks dropped, `sort=id` when none was sent), then the filters as sent (an
    /// include left out), the offset last and left out at the first item, strictly encoded,
    /// beside a `self` echoing the call decoded; `next` and `prev` only where an offset is sent.
    #[test]
    fn links_restating_the_query_are_learned_and_minted_for_other_calls() {
        let parse = |text: &str| rea_plugin_api::json::parse(text.as_bytes()).expect("json");
        let prefix = "http://h/api/tasks";
        let plain = parse(&format!(
            r#"{{"first": "{prefix}?page%5Blimit%5D=10&sort=id", "self": "{prefix}"}}"#
        ));
        let paged = parse(&format!(
            r#"{{"first": "{prefix}?page%5Blimit%5D=5&sort=id",
                "next": "{prefix}?page%5Blimit%5D=5&sort=id&page%5Boffset%5D=15",
                "prev": "{prefix}?page%5Blimit%5D=5&sort=id&page%5Boffset%5D=5",
                "self": "{prefix}?page[limit]=5&page[offset]=10"}}"#
        ));
        let sorted = parse(&format!(
            r#"{{"first": "{prefix}?page%5Blimit%5D=10&sort=title&filter%5Bstatus%3Aeq%5D=todo",
                "self": "{prefix}?filter[status:eq]=todo&sort=-title&include=project"}}"#
        ));
        let paged_sent = pairs(&[("page[limit]", "5"), ("page[offset]", "10")]);
        let second = parse(&format!(
            r#"{{"first": "{prefix}?page%5Blimit%5D=5&sort=id",
                "next": "{prefix}?page%5Blimit%5D=5&sort=id&page%5Boffset%5D=10",
                "prev": "{prefix}?page%5Blimit%5D=5&sort=id&page%5Boffset%5D=0",
                "self": "{prefix}?page[limit]=5&page[offset]=5"}}"#
        ));
        let second_sent = pairs(&[("page[limit]", "5"), ("page[offset]", "5")]);
        let sorted_sent = pairs(&[
            ("filter[status:eq]", "todo"),
            ("sort", "-title"),
            ("include", "project"),
        ]);
        let page = |links, position, size, sent| ShownPage {
            links,
            position,
            size,
            matched: 12,
            sent,
        };
        let pages = [
            page(&plain, None, None, &[][..]),
            page(&second, Some("5"), Some(5), &second_sent),
            page(&paged, Some("10"), Some(5), &paged_sent),
            page(&sorted, None, None, &sorted_sent),
        ];
        let offset = Position::Offset {
            name: "page[offset]",
        };
        let forms = page_link_forms(&pages, offset, "page[limit]");
        let restated = |strict_wanted: bool| {
            forms.iter().find(|form| {
                matches!(form, CursorForm::PageLinks { restated: Some(_), strict, decoded: false, .. } if *strict == strict_wanted)
            })
        };
        let Some(CursorForm::PageLinks {
            restated: Some(restatement),
            default_size,
            ..
        }) = restated(true)
        else {
            panic!("no restated form: {forms:?}");
        };
        assert_eq!(*default_size, Some(10));
        assert_eq!(
            restatement.leading,
            vec![
                ("page[limit]".to_owned(), Some("10".to_owned())),
                ("sort".to_owned(), Some("id".to_owned()))
            ]
        );
        assert!(restatement.unsigned_sort);
        let model = QueryModel::of_roles(&[
            ("page[limit]", QueryRole::PageSize),
            ("page[offset]", QueryRole::Offset),
            ("sort", QueryRole::Sort),
            ("filter[title:like]", QueryRole::filter("title", "like")),
        ]);
        // A call no page showed: a glob filter, two sorts, an offset and an include.
        let sent = pairs(&[
            ("include", "project"),
            ("filter[title:like]", "*the*"),
            ("page[offset]", "3"),
            ("sort", "-priority,title"),
            ("page[limit]", "3"),
        ]);
        let end = first_call(&model, &sent, 12);
        let form = restated(true).expect("the strict form");
        let Some(Some(Json::Object(links))) = end.minted(form) else {
            panic!("no links");
        };
        let link = |key: &str| links.get(key).and_then(Json::as_str).map(str::to_owned);
        let restated_query =
            "page%5Blimit%5D=3&sort=priority%2Ctitle&filter%5Btitle%3Alike%5D=%2Athe%2A";
        assert_eq!(link("first"), Some(format!("{prefix}?{restated_query}")));
        assert_eq!(
            link("next"),
            Some(format!("{prefix}?{restated_query}&page%5Boffset%5D=6"))
        );
        assert_eq!(
            link("prev"),
            Some(format!("{prefix}?{restated_query}&page%5Boffset%5D=0"))
        );
        // The echo repeats the call as sent, decoded.
        assert_eq!(
            link("self"),
            Some(format!(
                "{prefix}?include=project&filter[title:like]=*the*&page[offset]=3&sort=-priority,title&page[limit]=3"
            ))
        );
        // Form encoding keeps the `*` the strict encoding spells `%2A`.
        let Some(Some(Json::Object(form_links))) = end.minted(restated(false).expect("form"))
        else {
            panic!("no links");
        };
        let first = form_links
            .get("first")
            .and_then(Json::as_str)
            .expect("first");
        assert!(first.ends_with("filter%5Btitle%3Alike%5D=*the*"), "{first}");
    }
}
