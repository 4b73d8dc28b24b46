//! The native command line: the same library the browser runs, for scripts, tests and benchmarks.
//! Dispatches to `hpcscope::cli` (one module per subcommand).

const USAGE: &str = "usage: hpcscope <command> [args]
commands:
  summary DIR          what a dataset is: format, layout, title, counts
  dump --json DIR      full transcript of a dataset as JSON
  synth [options] DIR  write a synthetic HPCToolkit v4.0 database (--size 1G, --ranks R, ...)
  load DIR [--repeat N]  time opening DIR to inclusive/exclusive values (benchmarks)
  report [--json] [--task] DIR   uftrace recording: per-function totals like `uftrace report`
  report --html OUT.html [--views LIST] [--max-mb N] DIR   one self-contained page (no server)
  fixture KIND OUT     write a generated dataset: dcpi, prof2, uftrace-deep, hpcrun, uftrace
  export --format speedscope|chrome|folded|csv [--metric NAME] [-o FILE] DIR   other tools' formats
  diff [--json | --format folded|csv] [--metric NAME] BASE NEW   compare two runs
  index DIR            write DIR/hpcscope-index.json (file list for opening DIR by URL)";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        eprintln!("{USAGE}");
        std::process::exit(2);
    };
    let rest = &args[1..];
    let result = match cmd.as_str() {
        "summary" => hpcscope::cli::summary::run(rest),
        "dump" => hpcscope::cli::dump::run(rest),
        "synth" => hpcscope::cli::synth::run(rest),
        "load" => hpcscope::cli::load::run(rest),
        "report" => hpcscope::cli::report::run(rest),
        "fixture" => hpcscope::cli::fixture::run(rest),
        "export" => hpcscope::cli::export::run(rest),
        "diff" => hpcscope::cli::diff::run(rest),
        "index" => hpcscope::cli::index::run(rest),
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command '{other}'\n{USAGE}")),
    };
    if let Err(e) = result {
        eprintln!("hpcscope: {e}");
        std::process::exit(1);
    }
}
