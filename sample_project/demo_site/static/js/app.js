document.addEventListener('click', function (event) {
  if (event.target.matches('.quick-add')) { event.target.textContent = 'Added'; }
});
