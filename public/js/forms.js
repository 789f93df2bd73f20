// Forms of the site (the contribution and edit forms, sign-in, agent keys). External file: the
// CSP allows no inline script. Everything here enhances forms that work without it.
// - An error summary (data-error-summary) gets focus when the page opens (autofocus does the
//   same without this script), and its links put focus in the field they name, label in view.
// - In a form marked data-enter-guard, Enter in a one-line field or on a checkbox does not send
//   the form (a half-finished report); buttons, the file picker and text areas keep Enter.
(() => {
  const summary = document.querySelector('[data-error-summary]');
  if (summary) {
    if (document.activeElement !== summary) summary.focus();
    summary.addEventListener('click', (event) => {
      const link = event.target instanceof Element ? event.target.closest('a[href^="#"]') : null;
      if (!link) return;
      const field = document.getElementById(decodeURIComponent(link.hash.slice(1)));
      if (!field) return;
      event.preventDefault();
      const label = field.id ? document.querySelector(`label[for="${CSS.escape(field.id)}"]`) : null;
      const legend = field.closest('fieldset')?.querySelector('legend');
      (label ?? legend ?? field).scrollIntoView({ block: 'start' });
      field.focus({ preventScroll: true });
    });
  }

  const KEEPS_ENTER = new Set(['submit', 'button', 'reset', 'image', 'file']);
  for (const form of document.querySelectorAll('form[data-enter-guard]')) {
    form.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter' || event.isComposing) return;
      const target = event.target;
      if (target instanceof HTMLInputElement && !KEEPS_ENTER.has(target.type)) event.preventDefault();
    });
  }
})();
