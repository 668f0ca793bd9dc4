//! A product's booking questions (docs/operator-catalog.md, "Booking questions"): the
//! operator's checks of their definitions, and the questions in a reader's language.

use std::collections::HashSet;

use app::wire::{AskedQuestion, Choice, InputType, Locale, Question};

use crate::validate::Checks;

/// At most this many questions on one product, and choices on one question.
pub const MAX_QUESTIONS: usize = 20;
pub const MAX_OPTIONS: usize = 50;

/// Every rule of a product's `questions`: ids distinct and well formed, each label (and each
/// choice's) with at least one language, choices exactly on `select` questions, distinct.
pub fn check(checks: &mut Checks, questions: &[Question]) {
    checks.check(
        questions.len() <= MAX_QUESTIONS,
        "questions",
        "too-many",
        format!("at most {MAX_QUESTIONS} questions"),
    );
    checks.distinct(questions.iter().map(|q| q.question_id.as_str()), |i| {
        format!("questions[{i}].question_id")
    });
    for (i, q) in questions.iter().enumerate() {
        let at = format!("questions[{i}]");
        checks.check(
            is_question_id(&q.question_id),
            &format!("{at}.question_id"),
            "identifier",
            format!("{at}.question_id must be 1 to 50 lower-case letters, digits, '_' or '-'"),
        );
        checks.localized(&format!("{at}.label"), &q.label);
        let select = q.input_type == InputType::Select;
        if select {
            checks.check(
                (1..=MAX_OPTIONS).contains(&q.options.len()),
                &format!("{at}.options"),
                "length",
                format!("{at}.options must hold 1 to {MAX_OPTIONS} choices for a select question"),
            );
        } else {
            checks.check(
                q.options.is_empty(),
                &format!("{at}.options"),
                "not_allowed",
                format!("{at}.options are only allowed on a select question"),
            );
        }
        let mut values = HashSet::new();
        for (j, option) in q.options.iter().enumerate() {
            let field = format!("{at}.options[{j}]");
            checks.identifier(&format!("{field}.value"), &option.value, 1, 50);
            checks.check(
                values.insert(option.value.as_str()),
                &format!("{field}.value"),
                "duplicate",
                format!("{field}.value repeats an earlier choice"),
            );
            checks.localized(&format!("{field}.label"), &option.label);
        }
    }
}

/// What a question id may be: it travels in answers and field names unescaped.
pub fn is_question_id(id: &str) -> bool {
    (1..=50).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'-'))
}

/// `question` in `locale`, asked for the basket's line `line` when it is asked per ticket.
pub fn asked(question: &Question, locale: Locale, line: Option<u32>) -> AskedQuestion {
    AskedQuestion {
        question_id: question.question_id.clone(),
        label: question.label.get(locale).to_owned(),
        input_type: question.input_type,
        options: question
            .options
            .iter()
            .map(|o| Choice {
                value: o.value.clone(),
                label: o.label.get(locale).to_owned(),
            })
            .collect(),
        required: question.required,
        per: question.per,
        line,
    }
}

#[cfg(test)]
mod tests {
    use app::wire::{AskedPer, LocalizedText, QuestionOption};

    use super::*;

    fn text(en: &str) -> LocalizedText {
        LocalizedText {
            en_gb: Some(en.into()),
            ..LocalizedText::default()
        }
    }

    fn question(id: &str, input_type: InputType) -> Question {
        Question {
            question_id: id.into(),
            label: text("Name"),
            input_type,
            options: Vec::new(),
            required: true,
            personal_data: true,
            per: AskedPer::Ticket,
        }
    }

    fn fields(questions: &[Question]) -> Vec<String> {
        let mut checks = Checks::default();
        check(&mut checks, questions);
        checks.errors().iter().map(|e| e.field.clone()).collect()
    }

    #[test]
    fn questions_need_distinct_ids_labels_and_choices_only_when_selecting() {
        assert!(fields(&[question("visitor_name", InputType::Text)]).is_empty());
        let mut select = question("diet", InputType::Select);
        assert_eq!(fields(&[select.clone()]), ["questions[0].options"]);
        select.options = vec![
            QuestionOption {
                value: "vegan".into(),
                label: text("Vegan"),
            },
            QuestionOption {
                value: "vegan".into(),
                label: LocalizedText::default(),
            },
        ];
        assert_eq!(
            fields(&[select]),
            [
                "questions[0].options[1].value",
                "questions[0].options[1].label"
            ]
        );
        let mut texted = question("Name", InputType::Text);
        texted.label = LocalizedText::default();
        texted.options = question("x", InputType::Text).options;
        assert_eq!(
            fields(&[texted, question("Name", InputType::Date)]),
            [
                "questions[1].question_id",
                "questions[0].question_id",
                "questions[0].label",
                "questions[1].question_id"
            ]
        );
    }

    #[test]
    fn a_label_falls_back_to_dutch_then_english_then_any() {
        let mut label = text("Name");
        assert_eq!(label.get(Locale::DeDe), "Name");
        label.fr_fr = Some("Nom".into());
        assert_eq!(label.get(Locale::FrFr), "Nom");
        label.nl_nl = Some("Naam".into());
        assert_eq!(label.get(Locale::DeDe), "Naam");
        let only_french = LocalizedText {
            fr_fr: Some("Nom".into()),
            ..LocalizedText::default()
        };
        assert_eq!(only_french.get(Locale::EnGb), "Nom");
    }
}
