// The gate's scanner page (/gate) as the person at the gate uses it: a phone paired by opening
// the operator's link, its camera held over tickets, an answer they can read at arm's length.
//
// `test` here gives each test its own Chromium, launched with the config's options and a fake
// camera (support/camera.ts), and a page in it (`scanner`) the size of a small tablet. Its
// credentials live in that page's localStorage, so every test pairs its own gate.

import { expect, test as base, type Locator, type Page } from '@playwright/test';
import { FakeCamera } from './camera';

export { expect } from '@playwright/test';

export const TABLET = { width: 1024, height: 768 };
export const PHONE = { width: 360, height: 740 };

export const test = base.extend<{ camera: FakeCamera; scanner: Page }>({
  // Playwright requires the fixture's first argument to be a destructuring pattern.
  camera: async ({}, use) => {
    const camera = await FakeCamera.open();
    await use(camera);
    await camera.close();
  },
  scanner: async ({ playwright, browserName, launchOptions, baseURL, camera }, use) => {
    const browser = await playwright[browserName].launch({
      ...launchOptions,
      args: [...(launchOptions.args ?? []), ...camera.args],
    });
    const context = await browser.newContext({ baseURL, viewport: TABLET, permissions: ['camera'] });
    await use(await context.newPage());
    await browser.close();
  },
});

/**
 * Opens the gate's pairing link on the scanner and waits for the paired screen: the gate's
 * name as its heading, the one-time code gone from the address bar.
 */
export async function pair(page: Page, pairingUrl: string, gateName: string): Promise<void> {
  // The link names the server's public URL; the page is opened on the tests' own address.
  const { pathname, hash } = new URL(pairingUrl);
  await page.goto(`${pathname}${hash}`);
  await expect(page.getByRole('heading', { level: 1, name: gateName })).toBeVisible();
  await expect(page).not.toHaveURL(/pairing/);
}

/** The camera's picture on the scanner. */
export function cameraView(page: Page): Locator {
  return page.getByLabel('Camera', { exact: true });
}

/** The scanner's status line (connection and uploads). */
export function statusLine(page: Page): Locator {
  return page.getByRole('status');
}

/** Waits until the scanner's camera shows pictures: before that, nothing can be read. */
export async function waitForCamera(page: Page): Promise<void> {
  const video = cameraView(page);
  await expect(video).toBeVisible();
  await expect
    .poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState >= 2 && v.videoWidth > 0), {
      message: 'the camera shows no picture',
    })
    .toBe(true);
}

/**
 * Whether the camera's next picture has anything dark on it (a ticket's code). It looks
 * through a copy of the page's camera track, so a paused or hidden video element does not show
 * an old picture; a stopped camera sees nothing (and reads nothing).
 */
export async function cameraSeesACode(page: Page): Promise<boolean> {
  return cameraView(page).evaluate(async (video: HTMLVideoElement) => {
    const stream = video.srcObject;
    const track = stream instanceof MediaStream ? stream.getVideoTracks().find((t) => t.readyState === 'live') : undefined;
    if (!track) {
      return false;
    }
    const copy = track.clone();
    const probe = document.createElement('video');
    probe.muted = true;
    probe.srcObject = new MediaStream([copy]);
    try {
      await probe.play();
      await new Promise<void>((resolve) => probe.requestVideoFrameCallback(() => resolve()));
      const canvas = document.createElement('canvas');
      canvas.width = probe.videoWidth;
      canvas.height = probe.videoHeight;
      const context = canvas.getContext('2d', { willReadFrequently: true })!;
      context.drawImage(probe, 0, 0);
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      for (let i = 0; i < data.length; i += 4) {
        if (data[i] < 96) {
          return true;
        }
      }
      return false;
    } finally {
      copy.stop();
      probe.srcObject = null;
    }
  });
}

/** Takes the ticket away from the camera and waits until the camera sees only the blank sheet. */
export async function takeAway(page: Page, camera: FakeCamera): Promise<void> {
  await camera.clear();
  await expect.poll(() => cameraSeesACode(page), { message: 'the camera still sees the code' }).toBe(false);
}

export interface Expected {
  /** "Let in" (green) or "Do not let in" (red). */
  admit: boolean;
  /** The refusal's reason line, "Already used" and the like. */
  reason?: string;
  /** The ticket's product, as the order shows it. */
  title?: string;
  /** Whether the answer says it was checked offline. */
  offline?: boolean;
}

/** The full-screen answer, once it says what `expected` says; its "Next scan" has focus. */
export async function expectAnswer(page: Page, expected: Expected): Promise<Locator> {
  const answer = page.getByRole('alert');
  const verdict = expected.admit ? 'Let in' : 'Do not let in';
  // Exact: "Do not let in" contains "let in".
  await expect(answer.getByRole('heading', { name: verdict, exact: true })).toBeVisible();
  // Green or red is what the person at the gate sees first; the class carries the colour.
  const colour = expected.admit ? 'admit' : 'refuse';
  await expect(
    page.locator(`[role="alert"].${colour}, [role="alert"] .${colour}`).first(),
    `the answer is not marked ${colour}`,
  ).toBeVisible();
  if (expected.reason) {
    await expect(answer.getByText(expected.reason)).toBeVisible();
  }
  if (expected.title) {
    await expect(answer).toContainText(expected.title);
  }
  if (expected.offline !== undefined) {
    await expect(answer.getByText('Checked offline')).toHaveCount(expected.offline ? 1 : 0);
  }
  // Hands full of tickets: Enter (or a tap anywhere on the button) goes on.
  await expect(answer.getByRole('button', { name: 'Next scan' })).toBeFocused();
  return answer;
}

/** Presses "Next scan" and waits until the answer is gone. */
export async function nextScan(page: Page): Promise<void> {
  await page.getByRole('alert').getByRole('button', { name: 'Next scan' }).click();
  await expect(page.getByRole('alert')).toBeHidden();
}

/**
 * Records how long the page took from reading a code to showing its answer, from the clock
 * stamps it puts on the answer (`data-read-ms`, `data-shown-ms`), as an annotation and a log
 * line (docs/benchmarks.md, "The scanner: from the read to the answer"). A time is reported,
 * never judged: several browsers and the server sharing a test machine's cores make it vary
 * far more than a gate's phone would.
 */
export async function recordAnswerTime(answer: Locator, label: string): Promise<void> {
  const info = test.info();
  await expect.soft(answer, 'the answer carries no data-shown-ms').toHaveAttribute('data-shown-ms', /\d/, { timeout: 2_000 });
  const read = await answer.getAttribute('data-read-ms');
  const shown = await answer.getAttribute('data-shown-ms');
  if (read === null || shown === null) {
    expect.soft(read, 'data-read-ms on the answer').not.toBeNull();
    return;
  }
  const ms = Number(shown) - Number(read);
  info.annotations.push({ type: 'read to answer', description: `${label}: ${ms.toFixed(1)} ms` });
  console.log(`gate, ${label}: ${ms.toFixed(1)} ms from the camera's read to the answer`);
}

/** A screenshot of what the scanner shows now, kept with the test's results. */
export async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: test.info().outputPath(`gate-${name}.png`) });
}
