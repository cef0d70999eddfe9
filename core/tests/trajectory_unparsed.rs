//! The report of unparsed actions: counts by reason, most frequent first, a few examples
//! each, bounded however many distinct reasons a hostile run has.

use wheelwright_core::trajectory::{
    ActionRecord, EXAMPLES_PER_REASON, InterpretOptions, MAX_EXAMPLE_COMMAND, MAX_REASONS,
    NotUnderstood, RawAction, ShellAction, UnparsedTally, interpret_action,
};

/// The records of shell actions with these commands, as the scorer makes them.
fn records(commands: &[String]) -> Vec<ActionRecord> {
    commands
        .iter()
        .enumerate()
        .map(|(i, command)| {
            let action = RawAction::Shell(ShellAction {
                command: command.clone(),
                output: Some(String::new()),
                ..ShellAction::default()
            });
            ActionRecord::new(
                i + 1,
                &interpret_action(&action, &InterpretOptions::default()),
            )
        })
        .collect()
}

fn strings(commands: &[&str]) -> Vec<String> {
    commands.iter().map(|c| (*c).to_owned()).collect()
}

#[test]
fn reasons_are_counted_most_frequent_first_with_examples() {
    let mut tally = UnparsedTally::new();
    tally.add(
        "chain/turn-1",
        &records(&strings(&[
            "ls",
            "frob 1 a.py",
            "for f in *; do cat $f; done",
            "frob 2 a.py",
        ])),
        1,
    );
    tally.add(
        "chain/turn-2",
        &records(&strings(&["frob 3 a.py", "frob 4 a.py", "cat a.py"])),
        2,
    );
    let report = tally.finish();
    assert_eq!(
        (
            report.actions,
            report.not_understood,
            report.rejected_responses
        ),
        (7, 5, 3)
    );
    let counts: Vec<(&NotUnderstood, usize)> = report
        .reasons
        .iter()
        .map(|r| (&r.reason, r.count))
        .collect();
    assert_eq!(
        counts,
        [
            (
                &NotUnderstood::UnknownCommand {
                    program: "frob".to_owned()
                },
                4
            ),
            (&NotUnderstood::ShellControl, 1),
        ]
    );
    let frob = &report.reasons[0];
    assert_eq!(frob.examples.len(), EXAMPLES_PER_REASON);
    let places: Vec<(&str, usize)> = frob
        .examples
        .iter()
        .map(|e| (e.turn.as_str(), e.action))
        .collect();
    assert_eq!(
        places,
        [
            ("chain/turn-1", 2),
            ("chain/turn-1", 4),
            ("chain/turn-2", 1)
        ]
    );
    assert_eq!(frob.message, frob.reason.to_string());
    assert_eq!(report.other_reasons, 0);
    // The wire form: the reason's tag and fields beside the count, read back unchanged.
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["reasons"][0]["reason"], "unknown_command");
    assert_eq!(json["reasons"][0]["program"], "frob");
    assert_eq!(
        serde_json::from_value::<wheelwright_core::trajectory::UnparsedReport>(json).unwrap(),
        report
    );
}

#[test]
fn a_run_of_distinct_unknown_commands_lists_a_bounded_number_of_reasons() {
    let commands: Vec<String> = (0..MAX_REASONS + 30)
        .map(|i| format!("tool{i} {}", "y".repeat(2 * MAX_EXAMPLE_COMMAND)))
        .collect();
    let mut tally = UnparsedTally::new();
    tally.add("c/turn-1", &records(&commands), 0);
    let report = tally.finish();
    assert_eq!(report.reasons.len(), MAX_REASONS);
    assert_eq!(report.other_reasons, 30);
    assert_eq!(report.not_understood, MAX_REASONS + 30);
    let example = &report.reasons[0].examples[0].command;
    assert!(
        example.len() <= MAX_EXAMPLE_COMMAND + '…'.len_utf8(),
        "{}",
        example.len()
    );
    assert!(example.ends_with('…'));
}

#[test]
fn an_empty_report_counts_the_actions_it_read() {
    let mut tally = UnparsedTally::new();
    tally.add("c/turn-1", &records(&strings(&["ls", "cat a.py"])), 0);
    let report = tally.finish();
    assert_eq!((report.actions, report.not_understood), (2, 0));
    assert!(report.reasons.is_empty());
}
