import { useEffect, useState, type RefObject } from 'react';

/**
 * Whether the element is on screen: in the viewport (or its scrolling pane) and the page not hidden
 * (another tab, a minimised window). For live figures worth reading again only while someone sees them.
 */
export function useShown(ref: RefObject<Element | null>): boolean {
  const [inView, setInView] = useState(true);
  const [pageShown, setPageShown] = useState(() => typeof document === 'undefined' || document.visibilityState !== 'hidden');

  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => {
      const entry = entries[entries.length - 1];
      if (entry) setInView(entry.isIntersecting);
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);

  useEffect(() => {
    const onChange = () => setPageShown(document.visibilityState !== 'hidden');
    document.addEventListener('visibilitychange', onChange);
    return () => document.removeEventListener('visibilitychange', onChange);
  }, []);

  return inView && pageShown;
}
