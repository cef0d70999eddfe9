//! Sandbox start overhead: `/bin/true` through the whole bwrap harness (needs root and bwrap).

use criterion::{Criterion, criterion_group, criterion_main};
use wheelwright_sandbox::{BwrapConfig, BwrapSandbox, Job, Sandbox, Status};

fn start(c: &mut Criterion) {
    let config = BwrapConfig {
        slots: 1,
        base_uid: 65300,
        ..BwrapConfig::default()
    };
    let sandbox = match BwrapSandbox::new(config) {
        Ok(s) => s,
        Err(e) => panic!("the start benchmark needs root and bwrap: {e}"),
    };
    let job = Job::command(["/bin/true"]);
    c.bench_function("bwrap_true", |b| {
        b.iter(|| {
            let outcome = sandbox.run(&job).expect("run");
            assert_eq!(outcome.status, Status::Exited(0));
        })
    });
}

criterion_group!(benches, start);
criterion_main!(benches);
