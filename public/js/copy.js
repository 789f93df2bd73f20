// Copy buttons: a freshly issued agent key, a claim's record, file line and tag. External file:
// the CSP allows no inline script.
// A button names the element to copy in data-copy-target and stays hidden without clipboard support.
for (const button of document.querySelectorAll('button[data-copy-target]')) {
  const target = document.getElementById(button.dataset.copyTarget);
  const status = button.dataset.copyStatus ? document.getElementById(button.dataset.copyStatus) : null;
  if (!target || !navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(target.textContent.trim());
      if (status) status.textContent = 'Copied.';
    } catch {
      if (status) status.textContent = 'Could not copy: select the text and copy it by hand.';
    }
  });
}
