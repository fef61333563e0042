import { useEffect, useRef, useState, type DragEvent } from 'react';
import { carriesFiles } from './import-file.ts';

/**
 * A drop target for files (the stream's list pane): whether files are dragged over it, and its
 * handlers. While it is mounted, a file dropped anywhere else on the page does nothing, instead of
 * the browser leaving the inspector to show the file.
 */
export function useFileDrop(onFiles: (files: File[]) => void) {
  const [dragging, setDragging] = useState(false);
  // dragenter/dragleave fire for every child crossed: count them.
  const depth = useRef(0);
  const onFilesRef = useRef(onFiles);
  onFilesRef.current = onFiles;

  useEffect(() => {
    const swallow = (event: globalThis.DragEvent) => {
      if (carriesFiles(event.dataTransfer?.types)) event.preventDefault();
    };
    window.addEventListener('dragover', swallow);
    window.addEventListener('drop', swallow);
    return () => {
      window.removeEventListener('dragover', swallow);
      window.removeEventListener('drop', swallow);
    };
  }, []);

  const handlers = {
    onDragEnter(event: DragEvent) {
      if (!carriesFiles(event.dataTransfer.types)) return;
      event.preventDefault();
      depth.current++;
      setDragging(true);
    },
    onDragOver(event: DragEvent) {
      if (!carriesFiles(event.dataTransfer.types)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
    },
    onDragLeave(event: DragEvent) {
      if (!carriesFiles(event.dataTransfer.types)) return;
      depth.current = Math.max(0, depth.current - 1);
      if (depth.current === 0) setDragging(false);
    },
    onDrop(event: DragEvent) {
      if (!carriesFiles(event.dataTransfer.types)) return;
      event.preventDefault();
      depth.current = 0;
      setDragging(false);
      const files = Array.from(event.dataTransfer.files);
      if (files.length > 0) onFilesRef.current(files);
    },
  };
  return { dragging, handlers };
}
