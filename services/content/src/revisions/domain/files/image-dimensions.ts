import { imageSize } from "image-size";

/**
 * Width and height of an image file, read from its header by image-size; undefined for anything
 * that is not an image it recognizes (or a corrupt one): dimensions are optional on a file.
 */
export function imageDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  try {
    const size = imageSize(bytes);
    if (!size.width || !size.height) return undefined;
    // EXIF orientations 5 to 8 rotate the image by 90°: its displayed size is swapped.
    const rotated = size.orientation !== undefined && size.orientation >= 5;
    return rotated ? { width: size.height, height: size.width } : { width: size.width, height: size.height };
  } catch {
    return undefined;
  }
}
