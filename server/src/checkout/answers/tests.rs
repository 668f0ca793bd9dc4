use app::wire::{
    Answer, AskedPer, InputType, Locale, LocalizedText, ProblemType, Question, QuestionOption,
};

use uuid::Uuid;

use super::*;

fn label(en: &str) -> LocalizedText {
    LocalizedText {
        en_gb: Some(en.into()),
        nl_nl: Some(format!("{en} (nl)")),
        ..LocalizedText::default()
    }
}

fn question(id: &str, input_type: InputType, per: AskedPer, required: bool) -> Question {
    Question {
        question_id: id.into(),
        label: label(id),
        input_type,
        options: Vec::new(),
        required,
        personal_data: id == "name",
        per,
    }
}

/// An adult ticket asking each visitor's name (required) and the booking's diet (optional,
/// a choice), and a child ticket asking each child's birth date (required) and the diet too.
fn products() -> (Product, Product) {
    let mut diet = question("diet", InputType::Select, AskedPer::Booking, false);
    diet.options = vec![QuestionOption {
        value: "vegan".into(),
        label: label("Vegan"),
    }];
    let mut adult = Product::example();
    adult.questions = Some(sqlx::types::Json(vec![
        question("name", InputType::Text, AskedPer::Ticket, true),
        diet.clone(),
    ]));
    let mut child = Product::example();
    child.product_id = Uuid::from_u128(2);
    child.questions = Some(sqlx::types::Json(vec![
        question("born", InputType::Date, AskedPer::Ticket, true),
        diet,
    ]));
    (adult, child)
}

fn answer(id: &str, at: Option<(u32, u32)>, value: &str) -> Answer {
    Answer {
        question_id: id.into(),
        line: at.map(|a| a.0),
        ticket: at.map(|a| a.1),
        value: value.into(),
    }
}

fn fields(error: Error) -> (ProblemType, Vec<String>) {
    match error {
        Error::Problem { kind, errors, .. } => {
            (kind, errors.into_iter().map(|e| e.field).collect())
        }
        other => panic!("not a problem: {other:?}"),
    }
}

#[test]
fn a_booking_question_asked_by_two_products_is_asked_once_and_per_ticket_ones_per_line() {
    let (adult, child) = products();
    let lines = [(&adult, 2), (&child, 1)];
    let asked: Vec<(String, Option<u32>)> = questions(&lines, Locale::EnGb)
        .into_iter()
        .map(|q| (q.question_id, q.line))
        .collect();
    assert_eq!(
        asked,
        [
            ("diet".to_owned(), None),
            ("name".to_owned(), Some(0)),
            ("born".to_owned(), Some(1))
        ]
    );
    assert_eq!(
        questions(&lines, Locale::NlNl)[0].options[0].label,
        "Vegan (nl)"
    );
}

#[test]
fn every_required_answer_is_demanded_by_ticket_and_named() {
    let (adult, child) = products();
    let lines = [(&adult, 2), (&child, 1)];
    let given = resolve(&lines, &[answer("name", Some((0, 1)), " Ann ")]).unwrap();
    assert_eq!(given[0].value, "Ann");
    assert!(given[0].personal_data);
    let (kind, missing) = fields(require(&lines, &given).unwrap_err());
    assert_eq!(kind, ProblemType::CheckoutAnswerRequired);
    assert_eq!(
        missing,
        [
            "lines[0].tickets[0].answers.name",
            "lines[1].tickets[0].answers.born"
        ]
    );
    let all = resolve(
        &lines,
        &[
            answer("name", Some((0, 0)), "Bo"),
            answer("name", Some((0, 1)), "Ann"),
            answer("born", Some((1, 0)), "2019-04-30"),
        ],
    )
    .unwrap();
    require(&lines, &all).unwrap();
    assert_eq!(of_ticket(&all, adult.product_id, 1)[0].value, "Ann");
    assert_eq!(of_ticket(&all, child.product_id, 0)[0].value, "2019-04-30");
    assert!(of_booking(&all).is_empty());
}

#[test]
fn answers_the_basket_does_not_ask_or_cannot_take_are_refused_by_field() {
    let (adult, child) = products();
    let lines = [(&adult, 2), (&child, 1)];
    let refused = resolve(
        &lines,
        &[
            answer("diet", None, "carnivore"),
            answer("born", Some((0, 0)), "2019-04-30"),
            answer("name", Some((0, 2)), "Cy"),
            answer("name", Some((0, 0)), "Bo"),
            answer("name", Some((0, 0)), "Bo"),
            answer("born", Some((1, 0)), "30-04-2019"),
            Answer {
                ticket: None,
                ..answer("name", Some((0, 1)), "Ann")
            },
            answer("name", None, "Ann"),
        ],
    )
    .unwrap_err();
    let (kind, at) = fields(refused);
    assert_eq!(kind, ProblemType::RequestValidationFailed);
    assert_eq!(
        at,
        [
            "answers[0].value",
            "answers[1].question_id",
            "answers[2].ticket",
            "answers[4]",
            "answers[5].value",
            "answers[6]",
            "answers[7].question_id"
        ]
    );
}

#[test]
fn each_input_type_takes_its_own_values() {
    let cases = [
        (InputType::Email, "ann@example.org", "ann@"),
        (InputType::Tel, "+31 (0)20 123 4567", "call me"),
        (InputType::Number, "-1.5", "1,5"),
        (InputType::Date, "2026-12-07", "2026-13-01"),
        (InputType::Textarea, "two\nlines", "bell\u{7}"),
        (InputType::Text, "one line", "two\nlines"),
    ];
    for (input_type, good, bad) in cases {
        let mut product = Product::example();
        product.questions = Some(sqlx::types::Json(vec![question(
            "q",
            input_type,
            AskedPer::Booking,
            true,
        )]));
        let lines = [(&product, 1)];
        assert!(
            resolve(&lines, &[answer("q", None, good)]).is_ok(),
            "{input_type:?} {good}"
        );
        assert!(
            resolve(&lines, &[answer("q", None, bad)]).is_err(),
            "{input_type:?} {bad}"
        );
    }
}

#[test]
fn more_answers_than_the_schema_allows_are_refused_before_any_is_looked_at() {
    let (adult, _) = products();
    let lines = [(&adult, 1)];
    let many: Vec<Answer> = (0..=MAX_ANSWERS)
        .map(|_| answer("diet", None, "vegan"))
        .collect();
    let (kind, at) = fields(resolve(&lines, &many).unwrap_err());
    assert_eq!(kind, ProblemType::RequestValidationFailed);
    assert_eq!(at, ["answers"]);
    assert!(resolve(&lines, &many[..1]).is_ok());
}
