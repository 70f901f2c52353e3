//! The fidelity run: `fidelity [--floors FILE] [--root DIR]... [--json DIR] [--write-lists]
//! [--print-floors]` (see `rea_tests::fidelity` and `rea_tests::fidelity_review`). Checks the miss
//! reviews, prints the agreement table (raw and over knowable steps) and the misses per category,
//! then checks the floors; exits 1 when an app dropped below its floor, a missed step has no
//! review entry or a review is wrong, a build failed, or no app was found. `--json DIR` writes
//! every comparison's Evidence there; `--write-lists` renders `tests/fidelity/<app>.md` and
//! `tests/fidelity/misses.md` from the reviews.

use std::path::PathBuf;
use std::process::ExitCode;

use rea_tests::{fidelity, fidelity_review};

fn main() -> ExitCode {
    let mut floors = rea_tests::workspace_root().join("tests/fidelity/floors.toml");
    let mut roots: Vec<PathBuf> = Vec::new();
    let mut print_floors = false;
    let mut json_dir: Option<PathBuf> = None;
    let mut lists = fidelity_review::Lists::Check;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--floors", Some(path)) => floors = PathBuf::from(path),
            ("--root", Some(path)) => roots.push(PathBuf::from(path)),
            ("--json", Some(path)) => json_dir = Some(PathBuf::from(path)),
            ("--write-lists", next) => {
                lists = fidelity_review::Lists::Write;
                if let Some(next) = next {
                    eprintln!("fidelity: unexpected argument {next}");
                    return ExitCode::from(2);
                }
            }
            ("--print-floors", next) => {
                print_floors = true;
                if let Some(next) = next {
                    eprintln!("fidelity: unexpected argument {next}");
                    return ExitCode::from(2);
                }
            }
            (other, _) => {
                eprintln!(
                    "fidelity: unknown argument {other}; usage: fidelity [--floors FILE] [--root DIR]... [--json DIR] [--write-lists] [--print-floors]"
                );
                return ExitCode::from(2);
            }
        }
    }
    if roots.is_empty() {
        roots = fidelity::default_roots();
    }
    let apps = fidelity::discover(&roots);
    if apps.is_empty() {
        eprintln!(
            "fidelity: no application with build.har, probe-reads.har and probe-crud.har under {roots:?}"
        );
        return ExitCode::FAILURE;
    }
    // The opt-in sibling transfer is on: the run measures what a user who turns it on gets.
    println!(
        "Measured with the default pipeline and `[manifest] sibling_transfer = true` (opt-in).\n"
    );
    let rules = match fidelity::fidelity_rules() {
        Ok(rules) => rules,
        Err(error) => {
            eprintln!("fidelity: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut results = Vec::new();
    let mut failed = false;
    for app in &apps {
        match fidelity::measure(app, &rules) {
            Ok(result) => results.push(result),
            Err(error) => {
                eprintln!("fidelity: {error}");
                failed = true;
            }
        }
    }
    let reviewed = fidelity_review::review_all(&mut results, lists);
    println!("{}", fidelity::table(&results));
    if let Some(dir) = &json_dir
        && let Err(error) = fidelity_review::write_json(&results, dir)
    {
        eprintln!("fidelity: {error}");
        return ExitCode::FAILURE;
    }
    if print_floors {
        print!("{}", fidelity::floors_of(&results));
        return ExitCode::SUCCESS;
    }
    let floors = match fidelity::read_floors(&floors) {
        Ok(floors) => floors,
        Err(error) => {
            eprintln!("fidelity: {error}");
            return ExitCode::FAILURE;
        }
    };
    let (drops, gains) = fidelity::check_floors(&results, &floors);
    for gain in &gains {
        println!("reminder: {gain}");
    }
    for drop in &drops {
        eprintln!("fidelity: {drop}");
    }
    println!("{} apps measured", results.len());
    if failed || !reviewed || !drops.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
