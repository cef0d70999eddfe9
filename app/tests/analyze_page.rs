//! The analysis page in a real headless Chromium: typing Python lists its definitions.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{HtmlElement, HtmlTextAreaElement};
use wheelwright_app::AnalyzePage;

wasm_bindgen_test_configure!(run_in_browser);

/// Tests in one binary share a page, so each mounts the page into its own element.
fn mount_fresh() -> HtmlElement {
    let document = web_sys::window().unwrap().document().unwrap();
    let host: HtmlElement = document.create_element("div").unwrap().unchecked_into();
    document.body().unwrap().append_child(&host).unwrap();
    leptos::mount::mount_to(host.clone(), AnalyzePage).forget();
    host
}

/// Lets Leptos run the effects queued by the last change.
async fn settle() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 20)
            .unwrap();
    });
    JsFuture::from(promise).await.unwrap();
}

async fn type_source(host: &HtmlElement, source: &str) {
    let area: HtmlTextAreaElement = host
        .query_selector("#source")
        .unwrap()
        .unwrap()
        .unchecked_into();
    area.set_value(source);
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let event = web_sys::Event::new_with_event_init_dict("input", &init).unwrap();
    area.dispatch_event(&event).unwrap();
    settle().await;
}

/// The table's rows as (kind, qualified name, lines, calls) cell texts.
fn rows(host: &HtmlElement) -> Vec<[String; 4]> {
    let rows = host.query_selector_all("#definitions tbody tr").unwrap();
    (0..rows.length())
        .map(|i| {
            let row: web_sys::Element = rows.item(i).unwrap().unchecked_into();
            let cell = |class: &str| {
                row.query_selector(&format!("td.{class}"))
                    .unwrap()
                    .and_then(|c| c.text_content())
                    .unwrap_or_default()
                    .trim()
                    .to_owned()
            };
            [cell("kind"), cell("name"), cell("lines"), cell("calls")]
        })
        .collect()
}

fn expected(rows: &[[&str; 4]]) -> Vec<[String; 4]> {
    rows.iter().map(|row| row.map(str::to_owned)).collect()
}

#[wasm_bindgen_test]
async fn typed_python_is_listed_with_its_calls() {
    let host = mount_fresh();
    type_source(
        &host,
        "import os\n\nclass Store:\n    @property\n    def path(self):\n        \
         return os.path.join(self.root, 'x')\n\ndef main():\n    s = Store()\n    print(s.path)\n",
    )
    .await;
    assert_eq!(
        rows(&host),
        expected(&[
            ["class", "Store", "3–6", ""],
            ["method", "Store.path", "5–6", "os.path.join"],
            ["function", "main", "8–10", "Store, print"],
        ])
    );
    assert!(host.query_selector("#syntax-errors").unwrap().is_none());
}

#[wasm_bindgen_test]
async fn broken_python_still_lists_what_parsed_and_says_where() {
    let host = mount_fresh();
    type_source(
        &host,
        "def ok():\n    return helper()\n\ndef broken(:\n    pass\n",
    )
    .await;
    let listed = rows(&host);
    assert_eq!(
        listed[0],
        expected(&[["function", "ok", "1–2", "helper"]])[0]
    );
    let warning = host
        .query_selector("#syntax-errors")
        .unwrap()
        .and_then(|w| w.text_content())
        .unwrap_or_default();
    assert!(warning.contains("line 4"), "{warning}");
}

#[wasm_bindgen_test]
async fn clearing_the_source_empties_the_table() {
    let host = mount_fresh();
    type_source(&host, "").await;
    assert!(rows(&host).is_empty());
    let summary = host
        .query_selector("#summary")
        .unwrap()
        .unwrap()
        .text_content()
        .unwrap();
    assert!(summary.starts_with("0 definitions"), "{summary}");
}
