// Directory search and filters: leave empty fields out of the query string, so result URLs stay
// short and shareable (/?agent=x rather than /?q=&category=&agent=x...). The forms work without this.
for (const form of [document.getElementById('search'), document.getElementById('filters'), document.getElementById('finder')]) {
  if (!form) continue;
  form.addEventListener('submit', () => {
    for (const field of form.querySelectorAll('input[name], select[name]')) {
      const isDefaultSort = field.name === 'sort' && field.value === 'recent';
      if (field.value.trim() === '' || isDefaultSort) field.disabled = true;
    }
    // Re-enable after the navigation starts, so Back shows the form as it was.
    setTimeout(() => {
      for (const field of form.querySelectorAll('[disabled]')) field.disabled = false;
    }, 0);
  });
}

// On a wide screen the category and agent lists sit beside the results: show them open. On a
// phone they stay a closed disclosure above the results, so the results come first on screen.
if (window.matchMedia('(min-width: 64rem)').matches) {
  for (const details of document.querySelectorAll('details[data-open-wide]')) details.open = true;
}
