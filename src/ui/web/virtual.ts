// A virtualised list for preact on @tanstack/virtual-core: only the rows in view (and a few either side) are in the
// DOM, so the fleet page stays quick at thousands of nodes. The wiring follows @tanstack/react-virtual's own.

import {
  elementScroll,
  observeElementOffset,
  observeElementRect,
  Virtualizer,
  type VirtualItem,
} from '@tanstack/virtual-core';
import { useLayoutEffect, useReducer, useState } from 'preact/hooks';

export interface VirtualList {
  items: VirtualItem[];
  totalSize: number;
}

export function useVirtualList(
  count: number,
  scroller: () => HTMLElement | null,
  estimateSize: (index: number) => number,
): VirtualList {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const options = {
    count,
    getScrollElement: scroller,
    estimateSize,
    overscan: 10,
    scrollToFn: elementScroll,
    observeElementRect,
    observeElementOffset,
    onChange: () => rerender(0),
  };
  const [virtualizer] = useState(() => new Virtualizer<HTMLElement, HTMLElement>(options));
  virtualizer.setOptions(options);
  useLayoutEffect(() => virtualizer._didMount(), []);
  useLayoutEffect(() => virtualizer._willUpdate());
  return { items: virtualizer.getVirtualItems(), totalSize: virtualizer.getTotalSize() };
}
