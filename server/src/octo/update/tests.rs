use app::wire::{Ticket, TicketStatus};
use uuid::Uuid;

use super::{left_out, UnitItemBody};

fn ticket(n: u128, status: TicketStatus) -> Ticket {
    Ticket {
        ticket_id: Uuid::from_u128(n),
        code: format!("T{n}"),
        qr: None,
        product_id: Uuid::nil(),
        product_title: "Entry".into(),
        age_group: None,
        visit_date: None,
        timeslot: None,
        valid_until: None,
        status,
        redeemed_at: None,
        replaced_by: None,
        answers: Vec::new(),
    }
}

fn item(uuid: Option<u128>) -> UnitItemBody {
    UnitItemBody {
        unit_id: "adult".into(),
        uuid: uuid.map(Uuid::from_u128),
        question_answers: Vec::new(),
    }
}

#[test]
fn named_items_keep_their_tickets_and_the_rest_go() {
    let tickets = [1, 2, 3].map(|n| ticket(n, TicketStatus::Valid));
    let out = left_out(&tickets, &[item(Some(3)), item(Some(1))]).unwrap();
    assert_eq!(out, vec![Uuid::from_u128(2)]);
}

#[test]
fn unnamed_items_keep_used_tickets_first_then_the_first_ones() {
    let tickets = [
        ticket(1, TicketStatus::Valid),
        ticket(2, TicketStatus::Valid),
        ticket(3, TicketStatus::Used),
    ];
    let out = left_out(&tickets, &[item(None), item(None)]).unwrap();
    assert_eq!(out, vec![Uuid::from_u128(2)]);
}

#[test]
fn cancelled_and_replaced_tickets_are_not_units_any_more() {
    let mut moved = ticket(4, TicketStatus::Valid);
    moved.replaced_by = Some(Uuid::from_u128(1));
    let tickets = [
        ticket(1, TicketStatus::Valid),
        ticket(2, TicketStatus::Cancelled),
        moved,
    ];
    assert_eq!(
        left_out(&tickets, &[item(None)]).unwrap(),
        Vec::<Uuid>::new()
    );
    assert!(left_out(&tickets, &[item(None), item(None)]).is_err());
}

#[test]
fn a_stranger_or_twice_named_unit_is_refused() {
    let tickets = [1, 2].map(|n| ticket(n, TicketStatus::Valid));
    assert!(left_out(&tickets, &[item(Some(9))]).is_err());
    assert!(left_out(&tickets, &[item(Some(1)), item(Some(1))]).is_err());
}
