//! `list_adapters` marks exactly the adapter `acquire_with` opens, and says why the others are not.

use vyre_driver_wgpu::testing::backend_or_skip;
use vyre_driver_wgpu::{AdapterOptions, list_adapters};

#[test]
fn the_listed_choice_is_the_adapter_acquire_opens() {
    let Some(backend) = backend_or_skip("the_listed_choice_is_the_adapter_acquire_opens") else {
        return;
    };
    let opened = backend.adapter_info().expect("the open device's adapter");
    let entries = list_adapters(&AdapterOptions::new().with_name(opened.name.clone()));
    let chosen: Vec<_> = entries.iter().filter(|e| e.chosen).collect();
    assert_eq!(chosen.len(), 1, "{entries:#?}");
    assert_eq!(chosen[0].info.name, opened.name);
    assert!(chosen[0].excluded.is_none() && chosen[0].reason.starts_with("chosen"));
    assert!(
        entries[0].chosen,
        "the chosen adapter is listed first: {entries:#?}"
    );
}

#[test]
fn a_name_that_matches_nothing_excludes_every_adapter_and_says_so() {
    let filter = "no adapter is called this 5e1b";
    let entries = list_adapters(&AdapterOptions::new().with_name(filter));
    for entry in &entries {
        assert!(!entry.chosen, "{entry:#?}");
        let why = entry.excluded.as_deref().unwrap_or_default();
        assert!(
            why.contains(filter) || why.contains("never uses"),
            "{entry:#?}"
        );
        assert!(entry.reason.starts_with("excluded"), "{entry:#?}");
    }
}
