/** Hands text to the browser as a file download (a Blob and an `<a download>`), as the export does. */
export function downloadText(fileName: string, mimeType: string, text: string, doc: Document = document): void {
  const url = URL.createObjectURL(new Blob([text], { type: mimeType }));
  const link = doc.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  link.style.display = 'none';
  doc.body.append(link);
  link.click();
  link.remove();
  // The download has taken the blob by the next task; let it go then (a big export is held twice till then).
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
