/**
 * A list taller than an element may be (browsers stop near 17 to 33 million pixels): its spacer is
 * capped, and the scroll position is scaled to the rows' ("virtual") position so that both ends meet —
 * the top of the scrollbar is the first row, its bottom the last. Each pixel scrolled moves the rows
 * `ratio` pixels; the rows are drawn at their virtual place, shifted by what the scaling adds.
 */
export interface ScrollScale {
  /** Virtual pixels per scroll pixel (1: no scaling). */
  ratio: number;
  /** The spacer's height. */
  spacerPx: number;
}

/** The most pixels a spacer is given: under every browser's limit on an element's height. */
export const MAX_SPACER_PX = 16_000_000;

export function scrollScale(fullPx: number, viewportPx: number, maxPx: number = MAX_SPACER_PX): ScrollScale {
  if (fullPx <= maxPx || viewportPx <= 0 || viewportPx >= maxPx) return { ratio: 1, spacerPx: fullPx };
  return { ratio: (fullPx - viewportPx) / (maxPx - viewportPx), spacerPx: maxPx };
}
