//! The fidelity run: `fidelity [--floors FILE] [--root DIR]... [--print-floors]` (see
//! `rea_tests::fidelity`). Prints the agreement table and the misses per category, then checks
//! the floors; exits 1 when an app dropped below its floor, a build failed, or no app was found.

use std::path::PathBuf;
use std::process::ExitCode;

use rea_tests::fidelity;

fn main() -> ExitCode {
    let mut floors = rea_tests::workspace_root().join("tests/fidelity/floors.toml");
    let mut roots: Vec<PathBuf> = Vec::new();
    let mut print_floors = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--floors", Some(path)) => floors = PathBuf::from(path),
            ("--root", Some(path)) => roots.push(PathBuf::from(path)),
            ("--print-floors", next) => {
                print_floors = true;
                if let Some(next) = next {
                    eprintln!("fidelity: unexpected argument {next}");
                    return ExitCode::from(2);
                }
            }
            (other, _) => {
                eprintln!(
                    "fidelity: unknown argument {other}; usage: fidelity [--floors FILE] [--root DIR]... [--print-floors]"
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
    let rules = match fidelity::default_rules() {
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
    println!("{}", fidelity::table(&results));
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
    if failed || !drops.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
