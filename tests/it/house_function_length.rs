//! Function length: the house rule that functions fit on a screen or two, checked on every crate
//! of the workspace but the test crates (`cargo test -p rea-tests --test it house_function_length::
//! -- --nocapture` prints every function over the soft limit, crate by crate).
//!
//! A function's length is the lines from its `fn` keyword to its closing brace (attributes and
//! doc comments not counted; closures and nested items counted in the function holding them,
//! nested functions also on their own). Test code is not counted: `#[test]` functions, and
//! modules declared under `#[cfg(test)]`. A crate is read from its `src/lib.rs` and `src/main.rs`
//! along their `mod` declarations, so a file no module declares is not read.

use std::path::{Path, PathBuf};

use syn::spanned::Spanned;
use syn::visit::Visit;

/// No non-test function may be longer than this many lines.
const HARD_LIMIT: usize = 80;

/// Functions past this many lines are near the limit (reported, not refused).
const SOFT_LIMIT: usize = 70;

/// Workspace members that are test code, not held to the rule: the integration tests and their
/// support library, and the fixtures they build.
const TEST_CRATES: [&str; 2] = ["tests", "tests/fixtures/"];

/// The crate whose function count shows the reading works (a crate of many functions).
const LARGE_CRATE: &str = "host/crates/state";

/// One function and its length.
#[derive(Debug)]
struct Function {
    file: PathBuf,
    name: String,
    line: usize,
    lines: usize,
}

fn is_cfg_test(attributes: &[syn::Attribute]) -> bool {
    attributes.iter().any(|attribute| {
        attribute.path().is_ident("cfg")
            && attribute
                .parse_args::<syn::Meta>()
                .is_ok_and(|meta| meta.path().is_ident("test"))
    })
}

fn is_test(attributes: &[syn::Attribute]) -> bool {
    is_cfg_test(attributes)
        || attributes
            .iter()
            .any(|attribute| attribute.path().is_ident("test"))
}

/// Collects a file's functions and the module files it declares.
struct Collector<'a> {
    file: &'a Path,
    functions: Vec<Function>,
    modules: Vec<String>,
}

impl Collector<'_> {
    fn function(&mut self, name: &syn::Ident, signature: &syn::Signature, block: &syn::Block) {
        let line = signature.fn_token.span().start().line;
        let end = block.span().end().line;
        self.functions.push(Function {
            file: self.file.to_owned(),
            name: name.to_string(),
            line,
            lines: end + 1 - line,
        });
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if is_test(&item.attrs) {
            return;
        }
        self.function(&item.sig.ident, &item.sig, &item.block);
        syn::visit::visit_item_fn(self, item);
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if is_test(&item.attrs) {
            return;
        }
        self.function(&item.sig.ident, &item.sig, &item.block);
        syn::visit::visit_impl_item_fn(self, item);
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if let Some(block) = &item.default
            && !is_test(&item.attrs)
        {
            self.function(&item.sig.ident, &item.sig, block);
        }
        syn::visit::visit_trait_item_fn(self, item);
    }

    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        if !is_cfg_test(&item.attrs) {
            syn::visit::visit_item_impl(self, item);
        }
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if is_cfg_test(&item.attrs) {
            return;
        }
        match &item.content {
            Some(_) => syn::visit::visit_item_mod(self, item),
            None => self.modules.push(item.ident.to_string()),
        }
    }
}

/// The file of module `name` declared in `file`.
fn module_file(file: &Path, name: &str) -> PathBuf {
    let folder = file.parent().expect("a source file has a folder");
    let stem = file
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or("");
    let base = if matches!(stem, "lib" | "main" | "mod") {
        folder.to_owned()
    } else {
        folder.join(stem)
    };
    let flat = base.join(format!("{name}.rs"));
    if flat.is_file() {
        flat
    } else {
        base.join(name).join("mod.rs")
    }
}

/// Every non-test function of a crate, read from `src/lib.rs` and `src/main.rs` along their
/// module declarations.
fn crate_functions(root: &Path) -> Vec<Function> {
    let mut functions = Vec::new();
    let mut files: Vec<PathBuf> = ["src/lib.rs", "src/main.rs"]
        .iter()
        .map(|file| root.join(file))
        .filter(|file| file.is_file())
        .collect();
    while let Some(file) = files.pop() {
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|error| panic!("{}: {error}", file.display()));
        let parsed =
            syn::parse_file(&text).unwrap_or_else(|error| panic!("{}: {error}", file.display()));
        let mut collector = Collector {
            file: &file,
            functions: Vec::new(),
            modules: Vec::new(),
        };
        collector.visit_file(&parsed);
        functions.append(&mut collector.functions);
        files.extend(
            collector
                .modules
                .iter()
                .map(|name| module_file(&file, name)),
        );
    }
    functions.sort_by(|a, b| b.lines.cmp(&a.lines).then(a.file.cmp(&b.file)));
    functions
}

/// The workspace's member crates (the `members` of the root `Cargo.toml`, a `*` expanded to the
/// folders holding a `Cargo.toml`), relative to the root, test crates left out.
fn checked_crates(root: &Path) -> Vec<String> {
    let manifest: toml::Table = std::fs::read_to_string(root.join("Cargo.toml"))
        .expect("the workspace manifest")
        .parse()
        .expect("a TOML manifest");
    let members = manifest["workspace"]["members"]
        .as_array()
        .expect("workspace members");
    let mut crates = Vec::new();
    for member in members.iter().filter_map(toml::Value::as_str) {
        let Some((parent, rest)) = member.split_once("/*") else {
            crates.push(member.to_owned());
            continue;
        };
        let mut found: Vec<String> = std::fs::read_dir(root.join(parent))
            .unwrap_or_else(|error| panic!("{parent}: {error}"))
            .filter_map(Result::ok)
            .map(|entry| format!("{parent}/{}{rest}", entry.file_name().to_string_lossy()))
            .filter(|relative| root.join(relative).join("Cargo.toml").is_file())
            .collect();
        found.sort();
        crates.extend(found);
    }
    crates.retain(|relative| {
        !TEST_CRATES.iter().any(|test| match test.strip_suffix('/') {
            Some(folder) => relative.starts_with(&format!("{folder}/")),
            None => relative == test,
        })
    });
    crates
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_owned()
}

#[test]
fn no_function_of_the_workspace_is_over_the_limit() {
    let root = workspace_root();
    let crates = checked_crates(&root);
    assert!(
        crates.iter().any(|relative| relative == LARGE_CRATE) && crates.len() > 20,
        "the workspace's crates are not all found: {crates:?}"
    );
    let mut over_hard = Vec::new();
    let mut total = 0;
    for relative in &crates {
        let functions = crate_functions(&root.join(relative));
        if relative == LARGE_CRATE {
            assert!(
                functions.len() > 100,
                "{relative}: only {} functions found; is the crate read?",
                functions.len()
            );
        }
        total += functions.len();
        let over_soft: Vec<&Function> = functions
            .iter()
            .filter(|function| function.lines > SOFT_LIMIT)
            .collect();
        if over_soft.is_empty() {
            continue;
        }
        println!(
            "{relative}: {} non-test functions, {} over {SOFT_LIMIT} lines, {} over {HARD_LIMIT}; longest {} lines",
            functions.len(),
            over_soft.len(),
            over_soft
                .iter()
                .filter(|function| function.lines > HARD_LIMIT)
                .count(),
            functions.first().map_or(0, |function| function.lines),
        );
        for function in &over_soft {
            let shown = function.file.strip_prefix(&root).unwrap_or(&function.file);
            println!(
                "  {:>4} lines  {}:{} {}",
                function.lines,
                shown.display(),
                function.line,
                function.name
            );
        }
        over_hard.extend(
            functions
                .into_iter()
                .filter(|function| function.lines > HARD_LIMIT),
        );
    }
    println!(
        "{} crates, {total} non-test functions, {} over {HARD_LIMIT} lines",
        crates.len(),
        over_hard.len()
    );
    assert!(
        over_hard.is_empty(),
        "functions over {HARD_LIMIT} lines (split them into named steps): {over_hard:#?}"
    );
}

#[test]
fn lengths_count_from_fn_to_the_closing_brace_and_skip_test_code() {
    let folder = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(folder.path().join("src/inner")).expect("folders");
    std::fs::write(
        folder.path().join("src/lib.rs"),
        "/// Doc.\n#[inline]\npub fn three() {\n    let x = 1;\n}\nmod inner;\n#[cfg(test)]\nmod tests;\n",
    )
    .expect("lib");
    std::fs::write(
        folder.path().join("src/inner.rs"),
        "struct S;\nimpl S {\n    fn two(&self) {\n    }\n}\n#[test]\nfn skipped() {\n}\nmod deeper;\n",
    )
    .expect("inner");
    std::fs::write(folder.path().join("src/inner/deeper.rs"), "fn one() {}\n").expect("deeper");
    std::fs::write(folder.path().join("src/tests.rs"), "fn hidden() {}\n").expect("tests");
    let mut found: Vec<(String, usize)> = crate_functions(folder.path())
        .into_iter()
        .map(|function| (function.name, function.lines))
        .collect();
    found.sort();
    assert_eq!(
        found,
        vec![
            ("one".to_owned(), 1),
            ("three".to_owned(), 3),
            ("two".to_owned(), 2)
        ]
    );
}
