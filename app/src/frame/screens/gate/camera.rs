//! The camera: the back camera's stream into the page's `<video>`, and every [`PERIOD_MS`] a
//! frame of it, scaled down to at most [`MAX_WIDTH`] pixels and turned grey, searched for
//! QR codes with `rqrr` (a maintained pure-Rust decoder compiled into this screen's chunk).

use std::{cell::Cell, rc::Rc};

use js_sys::{Object, Reflect};
use leptos::prelude::{set_interval_with_handle, IntervalHandle};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlVideoElement, MediaStream};

/// How often a frame is searched: a read answers within this plus the decoding's time.
const PERIOD_MS: u64 = 120;
/// Frames wider than this are scaled down first: a ticket's code held at a phone's distance
/// stays readable, and the search stays fast.
const MAX_WIDTH: u32 = 800;

/// A running camera; dropping it stops the searching and the stream.
pub struct Camera {
    stream: MediaStream,
    interval: IntervalHandle,
}

impl Drop for Camera {
    fn drop(&mut self) {
        self.interval.clear();
        for track in self.stream.get_tracks().iter() {
            track.unchecked_into::<web_sys::MediaStreamTrack>().stop();
        }
    }
}

/// Starts the camera into `video`; `on_read` gets each code found and when it was found
/// (`Date.now()`). `Err` when there is no camera or it was not allowed.
pub async fn start(
    video: HtmlVideoElement,
    on_read: impl Fn(String, f64) + 'static,
) -> Result<Camera, JsValue> {
    let devices = web_sys::window()
        .ok_or(JsValue::NULL)?
        .navigator()
        .media_devices()?;
    // The back camera on a phone; a laptop's only one otherwise. (Plain objects and unchecked
    // casts where the browser's answer is certain: each typed call or check is one more import
    // of the frame's main WASM, whose size is budgeted.)
    let constraints = Object::new();
    let wanted = Object::new();
    Reflect::set(&wanted, &"facingMode".into(), &"environment".into())?;
    Reflect::set(&constraints, &"video".into(), &wanted)?;
    let stream: MediaStream =
        JsFuture::from(devices.get_user_media_with_constraints(constraints.unchecked_ref())?)
            .await?
            .unchecked_into();
    // The element is muted, inline and autoplaying (`scanner.rs`), so the stream plays.
    video.set_src_object(Some(&stream));
    let canvas: HtmlCanvasElement = web_sys::window()
        .and_then(|w| w.document())
        .ok_or(JsValue::NULL)?
        .create_element("canvas")?
        .unchecked_into();
    let context: CanvasRenderingContext2d = canvas
        .get_context_with_context_options("2d", &{
            let options = Object::new();
            Reflect::set(&options, &"willReadFrequently".into(), &JsValue::TRUE)?;
            options.into()
        })?
        .ok_or(JsValue::NULL)?
        .unchecked_into();
    let busy = Rc::new(Cell::new(false));
    let interval = set_interval_with_handle(
        move || {
            if busy.replace(true) {
                return;
            }
            if let Some(code) = search(&video, &canvas, &context) {
                on_read(code, super::browser::now_ms());
            }
            busy.set(false);
        },
        std::time::Duration::from_millis(PERIOD_MS),
    )
    .map_err(|_| JsValue::NULL)?;
    Ok(Camera { stream, interval })
}

/// The first QR code in the video's current frame.
fn search(
    video: &HtmlVideoElement,
    canvas: &HtmlCanvasElement,
    context: &CanvasRenderingContext2d,
) -> Option<String> {
    // HAVE_CURRENT_DATA: a frame is there to draw.
    if video.ready_state() < 2 || video.video_width() == 0 {
        return None;
    }
    let (width, height) = scaled(video.video_width(), video.video_height());
    if canvas.width() != width || canvas.height() != height {
        canvas.set_width(width);
        canvas.set_height(height);
    }
    context
        .draw_image_with_html_video_element_and_dw_and_dh(
            video,
            0.0,
            0.0,
            f64::from(width),
            f64::from(height),
        )
        .ok()?;
    let rgba = context
        .get_image_data(0.0, 0.0, f64::from(width), f64::from(height))
        .ok()?
        .data();
    decode(&rgba, width as usize, height as usize)
}

/// A frame's size scaled to at most [`MAX_WIDTH`] wide, its proportions kept.
fn scaled(width: u32, height: u32) -> (u32, u32) {
    if width <= MAX_WIDTH {
        return (width, height);
    }
    (MAX_WIDTH, (height * MAX_WIDTH / width).max(1))
}

/// The first QR code's text in an RGBA image.
fn decode(rgba: &[u8], width: usize, height: usize) -> Option<String> {
    let grey: Vec<u8> = rgba
        .chunks_exact(4)
        .map(|p| ((u32::from(p[0]) * 77 + u32::from(p[1]) * 150 + u32::from(p[2]) * 29) >> 8) as u8)
        .collect();
    if grey.len() < width * height {
        return None;
    }
    let mut image =
        rqrr::PreparedImage::prepare_from_greyscale(width, height, |x, y| grey[y * width + x]);
    image
        .detect_grids()
        .into_iter()
        .find_map(|grid| grid.decode().ok().map(|(_, text)| text))
}
