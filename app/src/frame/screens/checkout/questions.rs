//! The checkout's booking questions, as the server sent them in the customer's language: the
//! booking's once, then each ticket's under its own heading. A field's name is the one the
//! server names it by when its answer is missing (`answers.diet`,
//! `lines[0].tickets[1].answers.name`); a refused value (`answers[2].value`) is renamed to its
//! field by [`Answers::name_errors`].

use leptos::{either::EitherOf3, prelude::*};

use super::fields::{error_text, Errors};
use crate::{
    i18n::{td_string, use_i18n},
    wire::{Answer, AskedQuestion, Checkout, FieldError, InputType},
};

/// One answer to give: a question, for the booking or for one ticket.
#[derive(Clone)]
struct AnswerField {
    question: AskedQuestion,
    ticket: Option<u32>,
    name: String,
    value: RwSignal<String>,
}

/// Every answer the checkout asks for, each bound to its input.
#[derive(Clone)]
pub struct Answers {
    fields: Vec<AnswerField>,
    /// The line titles, for the tickets' headings.
    titles: Vec<String>,
}

impl Answers {
    /// The fields `checkout.questions` ask for, holding the answers already given.
    pub fn of(checkout: &Checkout) -> Self {
        let mut fields = Vec::new();
        let given = |q: &AskedQuestion, ticket: Option<u32>| {
            checkout
                .answers
                .iter()
                .find(|a| a.question_id == q.question_id && a.line == q.line && a.ticket == ticket)
                .map(|a| a.value.clone())
                .unwrap_or_default()
        };
        let mut push = |q: &AskedQuestion, ticket: Option<u32>| {
            let name = match (q.line, ticket) {
                (Some(line), Some(t)) => {
                    format!("lines[{line}].tickets[{t}].answers.{}", q.question_id)
                }
                _ => format!("answers.{}", q.question_id),
            };
            fields.push(AnswerField {
                value: RwSignal::new(given(q, ticket)),
                question: q.clone(),
                ticket,
                name,
            });
        };
        // The booking's first, then ticket by ticket, each ticket's questions together.
        for q in checkout.questions.iter().filter(|q| q.line.is_none()) {
            push(q, None);
        }
        for (line, l) in checkout.lines.iter().enumerate() {
            let asked: Vec<&AskedQuestion> = checkout
                .questions
                .iter()
                .filter(|q| q.line.map(|n| n as usize) == Some(line))
                .collect();
            for ticket in 0..l.quantity {
                for q in &asked {
                    push(q, Some(ticket));
                }
            }
        }
        let titles = checkout.lines.iter().map(|l| l.title.clone()).collect();
        Self { fields, titles }
    }

    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// The answers filled in, and each one's field name, in the order sent.
    pub fn sent(&self) -> (Vec<Answer>, Vec<String>) {
        self.fields
            .iter()
            .filter_map(|f| {
                let value = f.value.get_untracked().trim().to_owned();
                (!value.is_empty()).then(|| {
                    let answer = Answer {
                        question_id: f.question.question_id.clone(),
                        line: f.question.line,
                        ticket: f.ticket,
                        value,
                    };
                    (answer, f.name.clone())
                })
            })
            .unzip()
    }

    /// `errors` with each refused answer (`answers[i]…`, `i` in the order sent) named by its
    /// field.
    pub fn name_errors(errors: Vec<FieldError>, sent: &[String]) -> Vec<FieldError> {
        errors
            .into_iter()
            .map(|mut e| {
                let index = e
                    .field
                    .strip_prefix("answers[")
                    .and_then(|rest| rest.split_once(']'))
                    .and_then(|(i, _)| i.parse::<usize>().ok());
                if let Some(name) = index.and_then(|i| sent.get(i)) {
                    e.field = name.clone();
                }
                e
            })
            .collect()
    }
}

/// Whose questions a group asks: the booking's (`None`), or a ticket's, by line and ticket.
type Group = Option<(u32, u32)>;

/// The questions, grouped: the booking's, then one group per ticket. (Plain functions, not
/// components: see docs/benchmarks.md, "The frame's size".)
pub fn questions(answers: Answers, errors: Errors) -> impl IntoView {
    let i18n = use_i18n();
    let mut groups: Vec<(Group, Vec<AnswerField>)> = Vec::new();
    for f in answers.fields {
        let key = f.question.line.zip(f.ticket);
        match groups.last_mut() {
            Some((k, list)) if *k == key => list.push(f),
            _ => groups.push((key, vec![f])),
        }
    }
    let titles = answers.titles;
    groups
        .into_iter()
        .map(|(key, fields)| {
            let title = key.map(|(line, ticket)| {
                (
                    titles.get(line as usize).cloned().unwrap_or_default(),
                    ticket + 1,
                )
            });
            // "Ticket 2: Feed the elephants": the number and the title as data, no template.
            let legend = move || match &title {
                Some((title, n)) => format!(
                    "{} {n}: {title}",
                    td_string!(i18n.get_locale(), checkout.ticket)
                ),
                None => td_string!(i18n.get_locale(), checkout.questions).to_owned(),
            };
            view! {
                <fieldset class="questions">
                    <legend>{legend}</legend>
                    {fields.into_iter().map(|f| question_field(f, errors)).collect_view()}
                </fieldset>
            }
        })
        .collect_view()
}

fn question_field(field: AnswerField, errors: Errors) -> impl IntoView {
    let i18n = use_i18n();
    let AnswerField {
        question,
        name,
        value,
        ..
    } = field;
    let id: String = "field-"
        .chars()
        .chain(name.chars().map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        }))
        .collect();
    let error_id = format!("{id}-error");
    let error = {
        let name = name.clone();
        Memo::new(move |_| errors.with(|list| list.iter().find(|e| e.field == name).cloned()))
    };
    let invalid = move || error.with(Option::is_some).then_some("true");
    let described = {
        let error_id = error_id.clone();
        move || error.with(Option::is_some).then(|| error_id.clone())
    };
    let on_input = move |ev| value.set(event_target_value(&ev));
    let required = question.required;
    let input = match question.input_type {
        InputType::Select => EitherOf3::A(view! {
            <select id=id.clone() name=name.clone() required=required aria-invalid=invalid aria-describedby=described on:change=on_input>
                <option value="" selected=value.get_untracked().is_empty()>{move || td_string!(i18n.get_locale(), checkout.choose)}</option>
                {question.options.iter().map(|o| view! {
                    <option value=o.value.clone() selected=value.get_untracked() == o.value>{o.label.clone()}</option>
                }).collect_view()}
            </select>
        }),
        InputType::Textarea => EitherOf3::B(view! {
            <textarea id=id.clone() name=name.clone() rows="3" required=required aria-invalid=invalid aria-describedby=described
                prop:value=move || value.get() on:input=on_input></textarea>
        }),
        kind => {
            let (kind, mode) = match kind {
                InputType::Email => ("email", None),
                InputType::Tel => ("tel", None),
                InputType::Date => ("date", None),
                InputType::Number => ("text", Some("decimal")),
                _ => ("text", None),
            };
            EitherOf3::C(view! {
                <input id=id.clone() name=name.clone() type=kind inputmode=mode required=required aria-invalid=invalid aria-describedby=described
                    prop:value=move || value.get() on:input=on_input/>
            })
        }
    };
    view! {
        <div class="field" class:invalid=move || error.with(Option::is_some)>
            <label for=id>
                {question.label}
                {(!required).then(|| view! { " " <span class="hint">{move || format!("({})", td_string!(i18n.get_locale(), checkout.optional))}</span> })}
            </label>
            {input}
            {move || error.get().map(|e| view! {
                <p class="field-error" id=error_id.clone()>{error_text(i18n.get_locale(), &e)}</p>
            })}
        </div>
    }
}
