// The pure parts of a capture: the region scaled to fit, and an image's size from its header.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { imageSize } from '../../src/capture/image-header.ts';
import { fitRegion } from '../../src/capture/regions.ts';

const s = suite('capture');

s('fitRegion scales a capture down to the long side and the area, never up', () => {
  const viewport = { x: 0, y: 40, width: 2400, height: 1600, scale: 1 };
  const big = fitRegion({ beyondViewport: false, size: { width: 2400, height: 1600 }, viewport }, { maxSide: 1568, maxPixels: 1_150_000 });
  const scale = big.clip!.scale;
  assert.is(scale, Math.floor(Math.sqrt(1_150_000 / (2400 * 1600)) * 1000) / 1000);
  assert.equal({ ...big.clip, scale: 1 }, viewport, 'the same region, only scaled');
  assert.ok(big.size.width * big.size.height <= 1_150_000 && big.size.width <= 1568);
  const tall = fitRegion({
    beyondViewport: true,
    size: { width: 800, height: 6000 },
    clip: { x: 0, y: 0, width: 800, height: 6000, scale: 1 },
  }, { maxSide: 1568 });
  assert.is(tall.clip!.scale, Math.floor((1568 / 6000) * 1000) / 1000);
  const small = { beyondViewport: false, size: { width: 1280, height: 720 }, viewport: { x: 0, y: 0, width: 1280, height: 720, scale: 1 } };
  assert.is(fitRegion(small, { maxSide: 1568, maxPixels: 1_150_000 }), small, 'a capture that fits is left as it is');
});

s('imageSize reads a PNG IHDR and a JPEG SOF marker, and nothing else', () => {
  const png = new Uint8Array(24);
  png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  png.set([0, 0, 0x05, 0x00, 0, 0, 0x02, 0xd0], 16);
  assert.equal(imageSize('png', base64(png)), { width: 1280, height: 720 });
  // SOI, an APP0 segment of 4 bytes, then SOF0 with height 300 and width 400.
  const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 11, 8, 0x01, 0x2c, 0x01, 0x90, 3, 0, 0]);
  assert.equal(imageSize('jpeg', base64(jpeg)), { width: 400, height: 300 });
  assert.is(imageSize('png', base64(jpeg)), undefined);
  assert.is(imageSize('jpeg', 'not base64!'), undefined);
});

function base64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

s.run();
