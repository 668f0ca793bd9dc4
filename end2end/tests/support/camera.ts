// A fake camera for the gate's scanner: Chromium's own fake capture device, fed from a Y4M
// file (`--use-file-for-fake-video-capture`), showing a QR code as a printed ticket would.
//
// The file is named once per browser launch, but Chromium reads a Y4M file frame by frame
// while it captures (media/capture/video/file_video_capture_device.cc, Y4mFileParser), so
// rewriting the frames in place, at the same length, changes what the camera sees within a
// frame or two. A test therefore holds a ticket up to the camera when it is ready for it:
// after pairing, after going offline. The file's length never changes, so a read never comes
// up short (which Chromium would take for the end of the file).

import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as QRCode from 'qrcode';

export const WIDTH = 640;
export const HEIGHT = 480;
const HEADER = `YUV4MPEG2 W${WIDTH} H${HEIGHT} F10:1 Ip A1:1 C420jpeg\n`;
const FRAME = 'FRAME\n';
/** Enough to loop over; each is the same picture. */
const FRAMES = 3;
/** Video levels (BT.601, limited range): what Chromium reads as black and white. */
const BLACK = 16;
const WHITE = 235;
const GREY = 128;
/** The white margin a reader needs around the code, in modules. */
const QUIET_ZONE = 4;

const Y_BYTES = WIDTH * HEIGHT;
const CHROMA_BYTES = (WIDTH / 2) * (HEIGHT / 2);
const FRAME_BYTES = Y_BYTES + 2 * CHROMA_BYTES;

/**
 * The luma plane of one frame: `text` as a QR code (error correction M), black on white, each
 * module a whole number of pixels, as large as fits, centred; `null` is a white frame.
 */
export function lumaPlane(text: string | null): Buffer {
  const plane = Buffer.alloc(Y_BYTES, WHITE);
  if (text === null) {
    return plane;
  }
  const { size, data } = QRCode.create(text, { errorCorrectionLevel: 'M' }).modules;
  const modules = size + 2 * QUIET_ZONE;
  const pixels = Math.floor(Math.min(WIDTH, HEIGHT) / modules);
  if (pixels < 2) {
    throw new Error(`a QR code of ${size} modules does not fit ${WIDTH}x${HEIGHT} at 2 pixels a module`);
  }
  const left = Math.floor((WIDTH - modules * pixels) / 2) + QUIET_ZONE * pixels;
  const top = Math.floor((HEIGHT - modules * pixels) / 2) + QUIET_ZONE * pixels;
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      if (!data[row * size + col]) {
        continue;
      }
      for (let y = 0; y < pixels; y++) {
        const start = (top + row * pixels + y) * WIDTH + left + col * pixels;
        plane.fill(BLACK, start, start + pixels);
      }
    }
  }
  return plane;
}

/** A whole Y4M video of `text` (or of nothing): the header, then a few identical frames. */
export function qrVideo(text: string | null): Buffer {
  const luma = lumaPlane(text);
  const chroma = Buffer.alloc(2 * CHROMA_BYTES, GREY);
  const parts: Buffer[] = [Buffer.from(HEADER, 'ascii')];
  for (let i = 0; i < FRAMES; i++) {
    parts.push(Buffer.from(FRAME, 'ascii'), luma, chroma);
  }
  return Buffer.concat(parts);
}

/** Where frame `index`'s luma plane starts in the file. */
function lumaOffset(index: number): number {
  return HEADER.length + index * (FRAME.length + FRAME_BYTES) + FRAME.length;
}

/** The camera a scanner browser is launched with; it starts out seeing a blank sheet. */
export class FakeCamera {
  private constructor(
    /** The video file; Chromium takes only names ending in `y4m`. */
    readonly file: string,
    private readonly dir: string,
  ) {}

  static async open(): Promise<FakeCamera> {
    const dir = await mkdtemp(join(tmpdir(), 'boxoffice-camera-'));
    const file = join(dir, 'camera.y4m');
    await writeFile(file, qrVideo(null));
    return new FakeCamera(file, dir);
  }

  /** The flags that make Chromium's camera this file, with its permission granted. */
  get args(): string[] {
    return [
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      `--use-file-for-fake-video-capture=${this.file}`,
    ];
  }

  /** Holds a QR code of `text` up to the camera. */
  async show(text: string): Promise<void> {
    await this.paint(lumaPlane(text));
  }

  /** Takes the ticket away: the camera sees a blank sheet. */
  async clear(): Promise<void> {
    await this.paint(lumaPlane(null));
  }

  async close(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Rewrites every frame's luma plane in place (the chroma stays grey). */
  private async paint(luma: Buffer): Promise<void> {
    const handle = await open(this.file, 'r+');
    try {
      for (let i = 0; i < FRAMES; i++) {
        await handle.write(luma, 0, luma.length, lumaOffset(i));
      }
    } finally {
      await handle.close();
    }
  }
}
